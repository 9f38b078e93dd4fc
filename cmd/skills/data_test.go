package main

import (
	"context"
	"encoding/json"
	"fmt"
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
	return startEngineBinary(t, "--data", dir)
}

// startEngineBinary runs skills engine on a free port with args and
// returns it once it logged its URL.
func startEngineBinary(t *testing.T, args ...string) (started, string) {
	t.Helper()
	urlRe := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`)
	var url string
	run := startBinary(t, false, func(line string) bool {
		if strings.Contains(line, "III_URL") {
			url = urlRe.FindString(line)
		}
		return url != ""
	}, append([]string{"engine", "--port", "0"}, args...)...)
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

// Two real processes on one --data directory: the second (skills dev, as
// a second make run on another PORT) refuses at start naming the first
// (its pid and command) and --data; once the first is killed with
// SIGKILL, the kernel has released the lock and the second starts (D66).
func TestDataDirRefusesASecondProcess(t *testing.T) {
	data := t.TempDir()
	first := startBinary(t, false, func(line string) bool { return strings.Contains(line, "III_URL") },
		"engine", "--port", "0", "--data", data)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, skillsBinary(t), "dev", "--port", "0", "--data", data, "--config", filepath.Join(t.TempDir(), "none.yaml"))
	second.Env = append(second.Environ(), "HOME="+t.TempDir())
	out, err := second.CombinedOutput()
	exitErr, ok := err.(*exec.ExitError)
	want := fmt.Sprintf("the data directory %s is in use by another process (pid %d: %s engine --port 0 --data %s)", data, first.cmd.Process.Pid, skillsBinary(t), data)
	if !ok || exitErr.ExitCode() == 0 || !strings.Contains(string(out), want) || !strings.Contains(string(out), "another directory with --data") {
		t.Fatalf("second process: %v, want a refusal naming the holder (%s):\n%s", err, want, out)
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	startBinary(t, false, func(line string) bool { return strings.Contains(line, "III_URL") },
		"dev", "--port", "0", "--data", data, "--config", filepath.Join(t.TempDir(), "none.yaml"))
}
