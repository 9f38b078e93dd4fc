package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// buildWorker builds the worker binary (cmd/skills) into a temporary
// directory of tb's and returns its path; build once per benchmark.
func buildWorker(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "skills")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/skills").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// workerProcess is the worker binary running as a child process; every
// line it writes on stdout (its log) is kept with the time it arrived,
// counted from just before the process was started.
type workerProcess struct {
	cmd   *exec.Cmd
	start time.Time
	done  chan struct{} // closed once the process has exited and its output is read

	mu      sync.Mutex
	lines   []timedLine
	changed chan struct{} // closed and replaced on every line
}

type timedLine struct {
	at   time.Time // when it arrived
	text string
}

// startWorker starts bin with args in dir with exactly env (nil: the
// test's own environment). The process is stopped when tb ends, if it
// has not been stopped before.
func startWorker(tb testing.TB, bin, dir string, env []string, args ...string) *workerProcess {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p := &workerProcess{cmd: cmd, done: make(chan struct{}), changed: make(chan struct{})}
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		defer close(p.done)
		scanner := bufio.NewScanner(stdout)
		scanner.Buffer(make([]byte, 64<<10), 1<<20)
		for scanner.Scan() {
			at := time.Now()
			p.mu.Lock()
			p.lines = append(p.lines, timedLine{at, scanner.Text()})
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
		}
		_ = cmd.Wait()
	}()
	tb.Cleanup(p.stop)
	return p
}

// waitLine returns when the first line containing every one of parts
// arrived, waiting for it at most timeout.
func (p *workerProcess) waitLine(tb testing.TB, timeout time.Duration, parts ...string) time.Time {
	tb.Helper()
	return p.waitLineAfter(tb, time.Time{}, timeout, parts...)
}

// waitLineAfter is waitLine for the lines that arrived after from.
func (p *workerProcess) waitLineAfter(tb testing.TB, from time.Time, timeout time.Duration, parts ...string) time.Time {
	tb.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for seen := 0; ; {
		p.mu.Lock()
		lines, changed := p.lines, p.changed
		p.mu.Unlock()
		for ; seen < len(lines); seen++ {
			if lines[seen].at.After(from) && containsAll(lines[seen].text, parts) {
				return lines[seen].at
			}
		}
		select {
		case <-changed:
		case <-p.done:
			tb.Fatalf("the worker exited before logging %q; its log:\n%s", parts, p.log())
		case <-deadline.C:
			tb.Fatalf("the worker did not log %q within %s; its log:\n%s", parts, timeout, p.log())
		}
	}
}

func containsAll(s string, parts []string) bool {
	return !slices.ContainsFunc(parts, func(part string) bool { return !strings.Contains(s, part) })
}

// log is every line so far, for failure messages.
func (p *workerProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, l := range p.lines {
		fmt.Fprintf(&b, "%8.1f ms  %s\n", ms(l.at.Sub(p.start)), l.text)
	}
	return b.String()
}

// stop interrupts the worker, as a supervisor stops it, and waits for it
// to exit (killing it after stopWait).
func (p *workerProcess) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(stopWait):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// stopWait bounds a worker's graceful stop (its own grace is 10 s).
const stopWait = 15 * time.Second

// median of durations (sorted in place); 0 for none.
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// ms is a duration in milliseconds, for ReportMetric.
func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// inheritedEnv is this process's environment without any III_ variable,
// then extra: a worker started by a supervisor that passes its own
// environment on (iii-worker, 0.22), with only what extra names.
func inheritedEnv(extra ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "III_") })
	return append(env, extra...)
}
