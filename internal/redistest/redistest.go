// Package redistest runs a real redis-server for a test, in the shape of
// net/http/httptest: NewServer starts one on a free loopback port in a
// temporary directory and stops it in the test's cleanup; Stop and Start
// take it down and bring it back on the same port and directory, as an
// outage would (docs/decisions.md D71).
//
// The server is Debian's redis-server (make redis-deps installs it). When
// it is missing the test fails, naming the fix; only SKILLS_NO_REDIS=1
// makes it skip, and says so.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SkipEnv is the variable that lets a machine without redis-server skip
// the tests that need one, instead of failing them.
const SkipEnv = "SKILLS_NO_REDIS"

// startWait bounds how long a server may take to say it is ready.
const startWait = 20 * time.Second

// stopWait bounds how long a server may take to exit after SIGTERM.
const stopWait = 20 * time.Second

// Options chooses how the server keeps its data.
type Options struct {
	// AppendOnly keeps every write in an append-only file (fsynced every
	// second, Redis's default), so a Stop and Start keep the data. False
	// keeps data in memory only: a Stop loses it.
	AppendOnly bool
}

// Server is one redis-server process, or the port and directory of one
// that is stopped.
type Server struct {
	// URL is redis://127.0.0.1:<port>/0, the same across Stop and Start.
	URL string
	// Addr is 127.0.0.1:<port>.
	Addr string

	tb   testing.TB
	bin  string
	dir  string
	opts Options

	mu   sync.Mutex
	cmd  *exec.Cmd
	exit chan struct{} // closed when cmd has been waited for
	logs *serverLog
}

// NewServer starts a redis-server on a free loopback port, in a temporary
// directory, and stops it when the test ends.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(SkipEnv) == "1" {
			tb.Skipf("no redis-server on PATH and %s=1: skipping a test that needs a real Redis", SkipEnv)
		}
		tb.Fatalf("this test needs a real Redis, and redis-server is not on PATH: run `make redis-deps` (it installs Debian's redis-server), or set %s=1 to skip such tests", SkipEnv)
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), opts: opts}
	tb.Cleanup(s.Stop)
	var last error
	for range 5 { // another process may take the free port first
		port, err := freePort()
		if err != nil {
			tb.Fatal(err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		s.URL = "redis://" + s.Addr + "/0"
		if last = s.start(); last == nil {
			return s
		}
	}
	tb.Fatalf("redistest: %v", last)
	return nil
}

// freePort asks the kernel for a loopback port nobody listens on.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("redistest: find a free port: %w", err)
	}
	defer ln.Close() //nolint:errcheck // only its number was wanted
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Start starts the server again on its port and directory after Stop; the
// data comes back with Options.AppendOnly.
func (s *Server) Start() {
	s.tb.Helper()
	if err := s.start(); err != nil {
		s.tb.Fatalf("redistest: %v", err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	running := s.cmd != nil
	s.mu.Unlock()
	if running {
		return fmt.Errorf("redis-server on %s is already running", s.Addr)
	}
	appendOnly := "no"
	if s.opts.AppendOnly {
		appendOnly = "yes"
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "",
		"--appendonly", appendOnly, "--dir", s.dir, "--daemonize", "no", "--logfile", "")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	logs := &serverLog{}
	ready := make(chan struct{})
	exit := make(chan struct{})
	go func() { // reads the server's output until it exits, then reaps it
		defer close(exit)
		r := bufio.NewReader(out)
		said := false
		for {
			line, err := r.ReadString('\n')
			logs.add(line)
			if !said && strings.Contains(line, "Ready to accept connections") {
				said = true
				close(ready)
			}
			if err != nil {
				_, _ = io.Copy(io.Discard, out)
				_ = cmd.Wait()
				return
			}
		}
	}()
	timer := time.NewTimer(startWait)
	defer timer.Stop()
	select {
	case <-ready:
		s.mu.Lock()
		s.cmd, s.exit, s.logs = cmd, exit, logs
		s.mu.Unlock()
		return nil
	case <-exit:
		return fmt.Errorf("redis-server on %s exited at start:\n%s", s.Addr, logs.String())
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-exit
		return fmt.Errorf("redis-server on %s did not say it was ready within %s:\n%s", s.Addr, startWait, logs.String())
	}
}

// serverLog is what a server printed.
type serverLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *serverLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(line)
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Stop shuts the server down (SIGTERM, as a service manager would) and
// waits for it to exit; the port and directory stay for Start. Stopping a
// stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, exit := s.cmd, s.exit
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.tb.Errorf("redistest: stop redis-server on %s: %v", s.Addr, err)
	}
	select {
	case <-exit:
	case <-time.After(stopWait):
		_ = cmd.Process.Kill()
		<-exit
		s.tb.Errorf("redistest: redis-server on %s did not exit within %s of SIGTERM; killed", s.Addr, stopWait)
	}
}

// Logs returns what the server printed since its last start.
func (s *Server) Logs() string {
	s.mu.Lock()
	logs := s.logs
	s.mu.Unlock()
	if logs == nil {
		return ""
	}
	return logs.String()
}
