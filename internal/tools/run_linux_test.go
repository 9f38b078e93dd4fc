package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone fails unless process pid no longer exists at all: not running,
// and not a zombie either, since the helper reaps everything it kills
// before the call returns.
func gone(t *testing.T, what string, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("%s (pid %d) is still there once the call returned (kill -0: %v)", what, pid, err)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s holds %q, not a pid", path, b)
	}
	return pid
}

// Nothing a command starts outlives the call, even a process that left
// the command's process group and session (setsid), whether the command
// returns at once, waits for it and times out, or leaves it deep in a
// tree of short-lived parents; a process that ignores SIGTERM is killed
// after the grace.
func TestRunLeavesNoProcessBehind(t *testing.T) {
	for _, c := range []struct {
		name, script string
		timeout      time.Duration
		wantErr      string
	}{
		{"setsid, the command returns", `setsid sleep 60 & echo $! > pid`, 0, ""},
		{"setsid, the command waits and times out", `setsid sleep 60 & echo $! > pid; wait`, time.Second, "timed out after 1s"},
		{"setsid deep in a tree of parents that have ended", `(sh -c '(setsid sh -c "sleep 60 & echo \$! > pid; wait" &)' &)`, 0, ""},
		{"setsid and deaf to SIGTERM, the command times out", `setsid sh -c 'trap "" TERM; echo $$ > pid; sleep 60; sleep 60' & wait`, time.Second, "timed out after 1s"},
		{"a new session that forks again", `setsid sh -c 'sleep 60 & echo $! > pid' ; exit 3`, 0, "Command failed with exit code 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRunner(t, RunnerOptions{KillGrace: 300 * time.Millisecond})
			dir := t.TempDir()
			// The command writes the pid of the process it leaves behind,
			// and returns only once that process exists (in the nested
			// case, a grandchild writes it later).
			script := c.script
			if c.timeout == 0 {
				script += "; while [ ! -s pid ]; do sleep 0.01; done"
			}
			env := r.Run(context.Background(), Call{Dir: dir, Program: "sh", Args: []string{"-c", script}, Timeout: c.timeout})
			if env.Error != c.wantErr {
				t.Errorf("envelope = %+v, want error %q", env, c.wantErr)
			}
			gone(t, "the process the command left", readPid(t, filepath.Join(dir, "pid")))
		})
	}
}

// The helper is invisible to the command: signalling its own process
// group (kill 0) reaches the command and what it started, not the
// helper, which reports how the command ended; a program that cannot be
// executed says why, as without a helper.
func TestHelperIsInvisible(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{})
	dir := t.TempDir()
	env := r.Run(context.Background(), Call{Dir: dir, Program: "sh", Args: []string{"-c", "sleep 60 & kill -TERM 0; wait"}})
	if env.ExitCode != -1 || env.Error != "terminated by signal terminated" {
		t.Errorf("kill 0: %+v", env)
	}
	if err := os.WriteFile(filepath.Join(dir, "text"), []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env = r.Run(context.Background(), Call{Dir: dir, Program: "./text"})
	if env.Error != "cannot execute ./text: not a binary and no #! line" {
		t.Errorf("a text file without #!: %+v", env)
	}
}
