package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// stopTimeout bounds how long a command may take to return after its
// context is cancelled (the worker's shutdown grace is 10 s).
const stopTimeout = 15 * time.Second

// lineTimeout bounds every wait for a log line.
const lineTimeout = 10 * time.Second

// runCmd runs the CLI in-process to completion and returns its exit code
// and output, as main would produce them.
func runCmd(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := exitCode(run(ctx, args, stdio{out: &stdout, err: &stderr}), &stderr)
	return code, stdout.String(), stderr.String()
}

// output is a goroutine-safe writer a test can wait on for a line.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newOutput() *output { return &output{changed: make(chan struct{})} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.buf.Write(p)
	close(o.changed)
	o.changed = make(chan struct{})
	return n, err
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor blocks until the output contains want, failing the test after
// lineTimeout.
func (o *output) waitFor(t *testing.T, want string) {
	t.Helper()
	o.waitCount(t, want, 1)
}

// waitCount blocks until the output contains want at least n times (a
// line a process logs again, say on each new connection), failing the
// test after lineTimeout.
func (o *output) waitCount(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.NewTimer(lineTimeout)
	defer deadline.Stop()
	for {
		o.mu.Lock()
		got := strings.Count(o.buf.String(), want)
		ch := o.changed
		o.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("%q is in the output %d times within %s, want %d; output so far:\n%s", want, got, lineTimeout, n, o.String())
		}
	}
}

// process is a CLI command running in-process in its own goroutine.
type process struct {
	t              *testing.T
	stdout, stderr *output
	cancel         context.CancelFunc
	done           chan int
	stopOnce       sync.Once
	code           int
}

// startCmd runs the CLI in a goroutine until stop is called; t.Cleanup
// stops it too, so it never outlives the test, failed or not.
func startCmd(t *testing.T, args ...string) *process {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &process{t: t, stdout: newOutput(), stderr: newOutput(), cancel: cancel, done: make(chan int, 1)}
	go func() {
		p.done <- exitCode(run(ctx, args, stdio{out: p.stdout, err: p.stderr}), p.stderr)
	}()
	t.Cleanup(func() { p.stop() })
	return p
}

// stop cancels the command (as SIGINT would) and returns its exit code,
// failing the test if it does not return within stopTimeout.
func (p *process) stop() int {
	p.stopOnce.Do(func() {
		p.cancel()
		select {
		case p.code = <-p.done:
		case <-time.After(stopTimeout):
			p.code = -1
			p.t.Errorf("command did not stop within %s of cancellation", stopTimeout)
		}
	})
	return p.code
}

// skills licenses prints WordNet's notice, which must travel with every
// copy of the table built into the binary.
func TestLicensesPrintsWordNetNotice(t *testing.T) {
	code, out, _ := runCmd(t, t.Context(), "licenses")
	if code != 0 || !strings.Contains(out, "WordNet 3.0 Copyright 2006 by Princeton University") || !strings.Contains(out, "MAKES NO REPRESENTATIONS OR WARRANTIES") {
		t.Errorf("skills licenses = %d\n%s", code, out)
	}
}

// --help prints a command's usage on standard output and exits 0, so
// `skills mcp --help | less` shows it; a bad flag is still a usage error
// on standard error.
func TestHelpGoesToStdout(t *testing.T) {
	for _, cmd := range [][]string{{}, {"dev"}, {"engine"}, {"call"}, {"tools"}, {"doctor"}, {"mcp"}} {
		for _, flag := range []string{"--help", "-h"} {
			args := append(append([]string{}, cmd...), flag)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := runCmd(t, t.Context(), args...)
				if code != 0 || !strings.Contains(out, "Usage") || errOut != "" {
					t.Errorf("skills %s: exit %d, stdout %q, stderr %q; want 0, the usage on stdout, nothing on stderr", strings.Join(args, " "), code, out, errOut)
				}
			})
		}
		args := append(append([]string{}, cmd...), "--bogus")
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, t.Context(), args...)
			if code != 2 || out != "" || !strings.Contains(errOut, "unknown flag: --bogus") {
				t.Errorf("skills %s: exit %d, stdout %q, stderr %q; want 2 and the complaint on stderr only", strings.Join(args, " "), code, out, errOut)
			}
		})
	}
}

// Every command that dials the engine checks its URL once at start: a
// value that could never connect (http://, a bare host:port) is a usage
// error naming it, where it came from, and the ws:// form that would work.
func TestEngineURLIsCheckedAtStart(t *testing.T) {
	t.Setenv("III_URL", "")
	t.Setenv("III_ENGINE_URL", "")
	// Before this check the worker retried such a URL forever: the
	// deadline makes that a failure instead of a hang.
	ctx, cancel := context.WithTimeout(t.Context(), lineTimeout)
	defer cancel()
	for name, cmd := range map[string][]string{"skills": {}, "skills call": {"call", "skills::list"}, "skills mcp": {"mcp"}} {
		for _, tt := range []struct{ url, want string }{
			{"http://127.0.0.1:49134", `--url "http://127.0.0.1:49134" is an HTTP URL; the engine speaks WebSocket: give ws://host:port (e.g. ws://127.0.0.1:49134) or wss://host:port for TLS; did you mean ws://127.0.0.1:49134?`},
			{"127.0.0.1:49134", `--url "127.0.0.1:49134" has no scheme; the engine speaks WebSocket: give ws://host:port (e.g. ws://127.0.0.1:49134) or wss://host:port for TLS; did you mean ws://127.0.0.1:49134?`},
		} {
			args := append(append([]string{}, cmd...), "--url", tt.url)
			code, out, errOut := runCmd(t, ctx, args...)
			if code != exitUsage || errOut != name+": "+tt.want+"\n" {
				t.Errorf("%s --url %s: exit %d\nstderr %q\nstdout %q\nwant exit 2 and stderr %q", name, tt.url, code, errOut, out, name+": "+tt.want)
			}
		}
		t.Run(name+" III_ENGINE_URL", func(t *testing.T) {
			t.Setenv("III_ENGINE_URL", "https://engine.example.com")
			code, _, errOut := runCmd(t, ctx, cmd...)
			want := name + `: III_ENGINE_URL="https://engine.example.com": engine URL "https://engine.example.com" is an HTTP URL;`
			if code != exitUsage || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "did you mean wss://engine.example.com?") {
				t.Errorf("exit %d, stderr %q; want 2 and %q…", code, errOut, want)
			}
		})
	}
}
