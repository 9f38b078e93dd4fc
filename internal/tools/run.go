package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Envelope is a tool call's result (D39, seed §4.3). A command that fails
// is still a successful call: Success is false and Error says why.
type Envelope struct {
	Success    bool            `json:"success"`
	ExitCode   int             `json:"exit_code"` // -1 when there is none: timeout, signal, not started
	Output     string          `json:"output"`
	Truncated  bool            `json:"truncated"`
	DurationMS int64           `json:"duration_ms"`
	Parsed     json.RawMessage `json:"parsed,omitempty"` // the whole output, when it is JSON
	Error      string          `json:"error,omitempty"`
}

// Call is one command to run.
type Call struct {
	Skill   string        // the skill's name: $SKILL_NAME
	Dir     string        // the skill's folder: $SKILL_DIR, where ./programs resolve, the default working directory
	Program string        // as the template wrote it
	Args    []string      // after the program, built by Template.Args
	Timeout time.Duration // 0: DefaultTimeout
}

// RunnerOptions configure a Runner (config tools.*).
type RunnerOptions struct {
	MaxConcurrent int           // commands running at once; more wait (default 4)
	EnvAllow      []string      // names passed besides the defaults; a trailing * matches a suffix; credentials only by exact name (FilterEnv)
	Workdir       string        // working directory for every command; "" = the skill's folder
	Environ       []string      // the environment to filter; nil = os.Environ()
	KillGrace     time.Duration // SIGTERM to SIGKILL; default 5 s
}

// Runner runs tool commands: no shell, a filtered environment, empty
// stdin, stdout and stderr merged into a head-and-tail capture, at most
// MaxConcurrent at once, and on timeout or cancellation SIGTERM to the
// command and everything it started, then SIGKILL after the grace (D38);
// nothing it started outlives the call (process.go).
type Runner struct {
	sem     chan struct{}
	env     []string
	workdir string
	grace   time.Duration
}

// NewRunner returns a Runner.
func NewRunner(o RunnerOptions) *Runner {
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 4
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.KillGrace <= 0 {
		o.KillGrace = 5 * time.Second
	}
	return &Runner{sem: make(chan struct{}, o.MaxConcurrent), env: FilterEnv(o.Environ, o.EnvAllow),
		workdir: o.Workdir, grace: o.KillGrace}
}

// drainTimeout bounds the wait for the output pipe once the command has
// ended and what it started was killed: a process that escaped (one that
// left the process group, where there is no helper to catch it) may
// still hold it.
const drainTimeout = 2 * time.Second

// Run runs c and returns its envelope; ctx ending (the worker shutting
// down) stops the command as a timeout does.
func (r *Runner) Run(ctx context.Context, c Call) Envelope {
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	case <-ctx.Done():
		return failed("cancelled before it started: " + ctx.Err().Error())
	}
	program, err := resolveProgram(c.Dir, c.Program)
	if err != nil {
		return failed(err.Error())
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	dir := c.Dir
	if r.workdir != "" {
		dir = r.workdir
	}
	environ := append(append([]string{}, r.env...), "SKILL_NAME="+c.Skill, "SKILL_DIR="+c.Dir)
	pr, pw, err := os.Pipe()
	if err != nil {
		return failed("cannot make the output pipe: " + err.Error())
	}
	start := time.Now()
	// One pipe for stdout and stderr: the output keeps its order.
	p, err := startProcess(program, c.Args, dir, environ, pw)
	pw.Close() //nolint:errcheck // the command holds its own copy
	if err != nil {
		pr.Close() //nolint:errcheck // nothing was read
		return failed(startError(c.Program, err))
	}
	var out capture
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(&out, pr)
	}()

	waited := make(chan ended, 1)
	go func() { waited <- p.wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped string // why the command was stopped, if it was
	var e ended
	select {
	case e = <-waited:
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %s", formatSeconds(timeout))
		e = r.stop(p, waited)
	case <-ctx.Done():
		stopped = "cancelled: " + ctx.Err().Error()
		e = r.stop(p, waited)
	}
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		pr.Close() //nolint:errcheck // a process that escaped kept the pipe open
		<-drained
	}
	pr.Close() //nolint:errcheck // read to the end
	if e.startErr != nil {
		return failed(startError(c.Program, e.startErr))
	}
	env := Envelope{DurationMS: time.Since(start).Milliseconds()}
	env.Output, env.Truncated = out.output()
	env.ExitCode, env.Error = outcome(e, stopped)
	env.Success = env.Error == ""
	if !env.Truncated {
		if trimmed := bytes.TrimSpace([]byte(env.Output)); len(trimmed) > 0 && json.Valid(trimmed) {
			env.Parsed = json.RawMessage(trimmed)
		}
	}
	return env
}

// stop asks the command and everything it started to stop, kills them
// after the grace, and returns how the command ended.
func (r *Runner) stop(p process, waited <-chan ended) ended {
	p.terminate()
	grace := time.NewTimer(r.grace)
	defer grace.Stop()
	select {
	case e := <-waited:
		return e
	case <-grace.C:
		p.kill()
		return <-waited
	}
}

// outcome turns how the command ended into the exit code and the error
// text.
func outcome(e ended, stopped string) (int, string) {
	switch {
	case stopped != "":
		return -1, stopped
	case e.err != nil:
		return -1, e.err.Error()
	case e.status.Signaled():
		return -1, "terminated by signal " + e.status.Signal().String()
	case e.status.ExitStatus() != 0:
		code := e.status.ExitStatus()
		return code, fmt.Sprintf("Command failed with exit code %d", code)
	}
	return 0, ""
}

func failed(msg string) Envelope { return Envelope{ExitCode: -1, Error: msg} }

// resolveProgram finds the program: a path with a separator is taken in
// the skill folder (and may not leave it) unless absolute; a bare name is
// looked up in PATH.
func resolveProgram(dir, program string) (string, error) {
	if !strings.ContainsAny(program, `/\`) {
		path, err := exec.LookPath(program)
		if err != nil {
			return "", fmt.Errorf("program not found: %s", program)
		}
		return path, nil
	}
	path := program
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
		if rel, err := filepath.Rel(dir, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("program %s leaves the skill folder", program)
		}
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("program not found: %s", program)
	case errors.Is(err, fs.ErrPermission):
		return "", fmt.Errorf("permission denied: %s", program)
	case err != nil:
		return "", fmt.Errorf("program %s: %v", program, err)
	case fi.IsDir():
		return "", fmt.Errorf("program %s is a directory", program)
	}
	return path, nil
}

// startError names why a program did not start, in the envelope's words.
func startError(program string, err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied: " + program
	case errors.Is(err, fs.ErrNotExist):
		return "program not found: " + program
	case errors.Is(err, syscall.ENOEXEC):
		return fmt.Sprintf("cannot execute %s: not a binary and no #! line", program)
	}
	return fmt.Sprintf("cannot start %s: %v", program, err)
}

func formatSeconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
