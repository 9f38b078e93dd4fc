package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/filewait"
	"github.com/iii-hq/skills-go/internal/iii"
)

// skills engine --data keeps state across a SIGKILL: once a write has been
// flushed (within a second), killing the process loses nothing, and the
// first log line says where state lives (D46).
func TestEngineDataSurvivesSIGKILL(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "skills")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := t.TempDir()
	start := func() (*exec.Cmd, string, string) {
		t.Helper()
		cmd := exec.Command(bin, "engine", "--port", "0", "--data", data)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		lines := bufio.NewScanner(stdout)
		var first string
		urlRe := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`)
		deadline := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		defer deadline.Stop()
		for lines.Scan() {
			if first == "" {
				first = lines.Text()
			}
			if u := urlRe.FindString(lines.Text()); u != "" && strings.Contains(lines.Text(), "III_URL") {
				go func() { // keep draining, so the engine never blocks on its log
					for lines.Scan() {
					}
				}()
				return cmd, u, first
			}
		}
		t.Fatalf("the engine never said where it listens; first line %q", first)
		return nil, "", ""
	}
	call := func(url, fn string, data any) json.RawMessage {
		t.Helper()
		c := iii.New(iii.Options{URL: url, Name: "data-test"})
		c.Start()
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
		out, err := c.Call(ctx, fn, data)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return out
	}

	cmd, url, first := start()
	if !strings.Contains(first, "state is kept in "+filepath.Join(data, "state.json")) {
		t.Errorf("first log line %q does not say where state lives", first)
	}
	call(url, "state::set", map[string]any{"scope": "skills", "key": "kept", "value": map[string]string{"id": "kept"}})
	kept := func(b []byte) bool { return strings.Contains(string(b), `"kept"`) }
	if err := filewait.Until(filepath.Join(data, "state.json"), 5*time.Second, kept); err != nil {
		t.Fatalf("the write never reached the state file: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	_, url, _ = start()
	if got := string(call(url, "state::get", map[string]string{"scope": "skills", "key": "kept"})); got != `{"id":"kept"}` {
		t.Errorf("after SIGKILL and a restart, state::get = %s", got)
	}
}
