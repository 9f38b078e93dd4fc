package main

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A client that stops reading skills mcp's standard output while the
// server still writes to it (it went away as a list_changed notification
// was on its way) ends the session: the process exits 0, having closed
// what it runs, rather than being killed by SIGPIPE.
func TestMCPExitsCleanlyWhenItsClientStopsReading(t *testing.T) {
	engine := startCmd(t, "engine", "--port", "0")
	engine.stdout.waitFor(t, "III_URL")
	engineURL := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`).FindString(engine.stdout.String())
	worker := startCmd(t, "--url", engineURL, "--log-level", "info")
	worker.stdout.waitFor(t, "skills ready")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(skillsBinary(t), "mcp", "--url", engineURL)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waited error
	exited := make(chan struct{})
	go func() { waited = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`,
	} {
		if _, err := in.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(out)
	// Both answers: the session is up and the server follows the registry.
	// A list_changed notification may come between them (the server tells
	// its client of every new connection to the engine).
	for answers := 0; answers < 2; {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the server's output: %v", err)
		}
		switch {
		case strings.Contains(line, `"result"`):
			answers++
		case strings.Contains(line, `"method":"notifications/`):
		default:
			t.Fatalf("the server wrote %q, want an answer or a notification", line)
		}
	}
	// The client goes: it reads nothing more, though its input stays open.
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ { // each registration makes the server write a list_changed
		select {
		case <-exited:
			var exit *exec.ExitError
			if errors.As(waited, &exit) {
				t.Fatalf("skills mcp ended with %v after its client stopped reading; want exit status 0", exit.ProcessState)
			}
			if waited != nil {
				t.Fatal(waited)
			}
			return
		case <-ctx.Done():
			t.Fatal("skills mcp kept running after its client stopped reading and a notification could not be written")
		default:
		}
		if code, stdout, stderr := runCmd(t, ctx, "call", "skills::register", "id=later-"+string(rune('a'+i%26)), "skill=# Later", "--url", engineURL); code != 0 {
			t.Fatalf("register: %d %s %s", code, stdout, stderr)
		}
	}
}
