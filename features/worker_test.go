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

	"github.com/iii-hq/skills-go/internal/engine"
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
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write; nil until first needed
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return b.buf.Write(p)
}

// next returns the output so far and a channel closed at the next write.
func (b *syncBuffer) next() (string, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.buf.String(), b.changed
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

// startProcess starts bin in directory dir ("": the test's) with args and
// env.
func startProcess(bin, dir string, args, env []string) (*process, error) {
	p := &process{cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Dir = dir
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

// waitOutput waits until the process's output contains want; it fails
// when the process exits without having written it, or after timeout.
func (p *process) waitOutput(want string, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		out, changed := p.out.next()
		if strings.Contains(out, want) {
			return nil
		}
		select {
		case <-changed:
		case <-p.done:
			// cmd.Wait returns only after the output was copied in full.
			if out := p.out.String(); !strings.Contains(out, want) {
				return fmt.Errorf("the worker exited with code %d; its output has no %q:\n%s", p.code, want, out)
			}
			return nil
		case <-deadline.C:
			return fmt.Errorf("the worker output has no %q within %s:\n%s", want, timeout, p.out)
		}
	}
}

// servingProbe is the function the readiness probe calls.
const servingProbe = "skills::resources-templates"

// waitServing returns once the worker serves through the engine, in its
// namespace (w.ns): with the local engine, once the engine holds its
// trigger types and functions there, then a probe call answers; with an external engine, a probe call is made again
// at every change the engine announces (engine::functions-available,
// engine::workers-available). It fails with the worker's output when the
// worker exits or does not serve within readyTimeout.
func (w *world) waitServing(p *process) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	fail := func(err error) error {
		if p.exited() {
			return fmt.Errorf("the worker exited with code %d before serving; its output:\n%s", p.code, p.out)
		}
		return fmt.Errorf("the worker did not serve %s within %s (%v); its output:\n%s", servingProbe, readyTimeout, err, p.out)
	}
	l, err := w.link()
	if err != nil {
		return err
	}
	if srv := l.srv; srv != nil {
		ns := w.ns
		if ns == "" {
			ns = engine.DefaultNamespace
		}
		for _, typ := range changeTypes {
			if err := srv.WaitTriggerTypeIn(ctx, ns, typ); err != nil {
				return fail(err)
			}
		}
		if err := srv.WaitFunctionIn(ctx, ns, servingProbe); err != nil {
			return fail(err)
		}
		if _, err := l.callIn(ctx, w.ns, servingProbe, nil); err != nil {
			return fail(err)
		}
		return nil
	}
	for {
		next := l.events.next()
		_, err := l.callIn(ctx, w.ns, servingProbe, nil)
		if err == nil {
			return nil
		}
		select {
		case <-next:
		case <-ctx.Done():
			return fail(err)
		}
	}
}
