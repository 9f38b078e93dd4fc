package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// startDataEngine starts the real skills engine --data dir on a free port
// and returns it with its URL, once it has logged it.
func startDataEngine(t *testing.T, dir string) (started, string) {
	t.Helper()
	urlRe := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`)
	var url string
	run := startBinary(t, false, func(line string) bool {
		if strings.Contains(line, "III_URL") {
			url = urlRe.FindString(line)
		}
		return url != ""
	}, "engine", "--port", "0", "--data", dir)
	return run, url
}

// skills engine --data keeps state across a SIGKILL: a write acknowledged
// is on disk, so killing the process right after it loses nothing, and the
// first log line says where state lives (D46, D67).
func TestEngineDataSurvivesSIGKILL(t *testing.T) {
	data := t.TempDir()
	start := func() (*exec.Cmd, string, string) {
		t.Helper()
		run, url := startDataEngine(t, data)
		return run.cmd, url, run.first
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
	if !strings.Contains(first, "state is kept in "+filepath.Join(data, "state.log")) {
		t.Errorf("first log line %q does not say where state lives", first)
	}
	call(url, "state::set", map[string]any{"scope": "skills", "key": "kept", "value": map[string]string{"id": "kept"}})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	_, url, _ = start()
	if got := string(call(url, "state::get", map[string]string{"scope": "skills", "key": "kept"})); got != `{"id":"kept"}` {
		t.Errorf("after SIGKILL and a restart, state::get = %s", got)
	}
}
