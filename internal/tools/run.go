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
	EnvAllow      []string      // names passed besides the defaults; a trailing * matches a suffix
	Workdir       string        // working directory for every command; "" = the skill's folder
	Environ       []string      // the environment to filter; nil = os.Environ()
	KillGrace     time.Duration // SIGTERM to SIGKILL; default 5 s
}

// Runner runs tool commands: no shell, a filtered environment, empty
// stdin, stdout and stderr merged into a head-and-tail capture, at most
// MaxConcurrent at once, and on timeout or cancellation SIGTERM to the
// whole process group, then SIGKILL after the grace (D38).
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

// drainTimeout bounds the wait for the output pipe once the command's
// group is gone: a process that left the group may still hold it.
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
	cmd := exec.Command(program, c.Args...)
	cmd.Dir = c.Dir
	if r.workdir != "" {
		cmd.Dir = r.workdir
	}
	cmd.Env = append(append([]string{}, r.env...), "SKILL_NAME="+c.Skill, "SKILL_DIR="+c.Dir)
	newGroup(cmd)
	pr, pw, err := os.Pipe()
	if err != nil {
		return failed("cannot make the output pipe: " + err.Error())
	}
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe: the output keeps its order

	start := time.Now()
	err = cmd.Start()
	pw.Close() //nolint:errcheck // the child holds its own copy
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

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped string // why the command was stopped, if it was
	var werr error
	select {
	case werr = <-waited:
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %s", formatSeconds(timeout))
		werr = r.stop(cmd.Process, waited)
	case <-ctx.Done():
		stopped = "cancelled: " + ctx.Err().Error()
		werr = r.stop(cmd.Process, waited)
	}
	killGroup(cmd.Process) // whatever the command left running in its group
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		pr.Close() //nolint:errcheck // a process outside the group kept the pipe open
		<-drained
	}
	pr.Close() //nolint:errcheck // read to the end
	env := Envelope{DurationMS: time.Since(start).Milliseconds()}
	env.Output, env.Truncated = out.output()
	env.ExitCode, env.Error = outcome(werr, stopped)
	env.Success = env.Error == ""
	if !env.Truncated {
		if trimmed := bytes.TrimSpace([]byte(env.Output)); len(trimmed) > 0 && json.Valid(trimmed) {
			env.Parsed = json.RawMessage(trimmed)
		}
	}
	return env
}

// stop sends SIGTERM to the group, then SIGKILL after the grace, and
// returns the command's wait result.
func (r *Runner) stop(p *os.Process, waited <-chan error) error {
	terminateGroup(p)
	grace := time.NewTimer(r.grace)
	defer grace.Stop()
	select {
	case err := <-waited:
		return err
	case <-grace.C:
		killGroup(p)
		return <-waited
	}
}

// outcome turns the wait result into the exit code and the error text.
func outcome(werr error, stopped string) (int, string) {
	if stopped != "" {
		return -1, stopped
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1, "terminated by signal " + ws.Signal().String()
		}
		code := exit.ExitCode()
		return code, fmt.Sprintf("Command failed with exit code %d", code)
	}
	if werr != nil {
		return -1, werr.Error()
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
