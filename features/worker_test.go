package features

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one run of the worker binary, its output captured.
type process struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{} // closed once the process has exited
	code int           // exit code; -1 when killed by a signal
}

// syncBuffer collects a process's stdout and stderr.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// workerEnv is the environment without the variables that name an engine
// or the worker, so that a scenario sets exactly the ones it means.
func workerEnv(extra map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "III_URL", "III_ENGINE_URL", "III_WORKER_NAME", engineEnv:
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// startProcess starts bin with args and env.
func startProcess(bin string, args, env []string) (*process, error) {
	p := &process{cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		defer close(p.done)
		err := p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		if p.code == 0 && err != nil {
			p.code = -1
		}
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends sig and waits for the exit code; a process that does not exit
// in time is killed and reported.
func (p *process) stop(sig syscall.Signal, timeout time.Duration) (int, error) {
	if !p.exited() {
		if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return 0, fmt.Errorf("signal %v: %w", sig, err)
		}
	}
	return p.wait(timeout)
}

// wait waits for the exit code.
func (p *process) wait(timeout time.Duration) (int, error) {
	select {
	case <-p.done:
		return p.code, nil
	case <-time.After(timeout):
		p.cmd.Process.Kill() //nolint:errcheck // reported below
		<-p.done
		return p.code, fmt.Errorf("the worker did not exit within %s; killed", timeout)
	}
}

// waitServing returns once the worker answers skills::resources-templates
// through the engine, or fails with the worker's output.
func (w *world) waitServing(p *process) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	var lastErr error
	for {
		probe, cancelProbe := context.WithTimeout(ctx, 500*time.Millisecond)
		_, err := w.run.call(probe, "skills::resources-templates", nil)
		cancelProbe()
		if err == nil {
			return nil
		}
		lastErr = err
		if p.exited() {
			return fmt.Errorf("the worker exited with code %d before serving; its output:\n%s", p.code, p.out)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the worker did not serve skills::resources-templates within %s (last error: %v); its output:\n%s", readyTimeout, lastErr, p.out)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
