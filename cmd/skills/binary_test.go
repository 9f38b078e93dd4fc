package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// skillsBinary builds the real skills binary once per test run.
func skillsBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "skills-cmd-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "skills")
		if out, err := exec.Command("go", "build", "-o", binaryPath, ".").CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// started is a run of the real binary.
type started struct {
	cmd   *exec.Cmd
	first string // its first log line
}

// startBinary starts the binary with args and reads its log (stderr when
// fromStderr, else stdout) until done returns true for a line; after that
// the log is drained so the process never blocks on it. The process is
// killed at the end of the test, and within 20 s if done never holds.
func startBinary(t *testing.T, fromStderr bool, done func(line string) bool, args ...string) started {
	t.Helper()
	cmd := exec.Command(skillsBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no real ~/.claude/skills in the way
	var pipe io.ReadCloser
	var err error
	if fromStderr {
		pipe, err = cmd.StderrPipe()
	} else {
		pipe, err = cmd.StdoutPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	lines := bufio.NewScanner(pipe)
	s := started{cmd: cmd}
	var seen []string
	for lines.Scan() {
		if s.first == "" {
			s.first = lines.Text()
		}
		seen = append(seen, lines.Text())
		if done(lines.Text()) {
			go func() {
				for lines.Scan() {
				}
			}()
			return s
		}
	}
	t.Fatalf("skills %s never logged what the test waits for; it logged:\n%s", strings.Join(args, " "), strings.Join(seen, "\n"))
	return s
}
