package features

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cucumber/godog"

	"github.com/iii-hq/skills-go/internal/buildinfo"
)

// procState is what the process scenarios hold besides the worker.
type procState struct {
	rec      *recordingEngine
	listener *silentListener
	exitCode int    // of the last one-off binary run
	stdout   string // of the last one-off binary run
	stderr   string // of the last one-off binary run
	// others are processes a scenario started besides the worker (an
	// engine holding a data directory); killed at its end.
	others []*process
}

func (p *procState) close() {
	for _, o := range p.others {
		_, _ = o.stop(syscall.SIGKILL, stopTimeout)
	}
	if p.rec != nil {
		p.rec.close()
	}
	if p.listener != nil {
		p.listener.ln.Close() //nolint:errcheck // tearing down
	}
}

// Steps about the binary as a process: one-off runs (--manifest), start-up
// with flags and environment, signals, and the handshake it sends.
func (w *world) processSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I run the binary with "([^"]*)"$`, w.runBinary)
	sc.Step(`^the binary exits with code (\d+)$`, func(code int) error {
		if w.procs.exitCode != code {
			return fmt.Errorf("exit code %d, want %d; stderr:\n%s", w.procs.exitCode, code, w.procs.stderr)
		}
		return nil
	})
	sc.Step(`^the binary output starts with "(.*)"$`, func(want string) error {
		return compareText("output", "starts with", w.procs.stdout, unescape(want))
	})
	sc.Step(`^the binary made no connection$`, func() error {
		if w.procs.listener == nil {
			return fmt.Errorf("the binary was not run in this scenario")
		}
		if n := w.procs.listener.accepted.Load(); n != 0 {
			return fmt.Errorf("the binary opened %d connections", n)
		}
		return nil
	})
	sc.Step(`^the keys at "([^"]*)" are, in order, "([^"]*)"$`, func(path, list string) error {
		got, err := keysInOrder(w.result, path)
		if err != nil {
			return err
		}
		if want := strings.Split(list, ", "); !slices.Equal(got, want) {
			return fmt.Errorf("keys at %q are %q, want %q", path, got, want)
		}
		return nil
	})

	sc.Step(`^I start the worker with:$`, w.startWorkerWith)
	sc.Step(`^the worker serves$`, func() error {
		if w.worker == nil {
			return fmt.Errorf("no worker was started")
		}
		return w.ready(w.worker)
	})
	sc.Step(`^I send (SIGINT|SIGTERM) to the worker$`, func(name string) error {
		if w.worker == nil {
			return fmt.Errorf("no worker was started")
		}
		sig := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM}[name]
		return w.worker.cmd.Process.Signal(sig)
	})
	sc.Step(`^the worker exits with code (\d+)$`, func(want int) error {
		if w.worker == nil {
			return fmt.Errorf("no worker was started")
		}
		code, err := w.worker.wait(stopTimeout)
		w.workerStopped = true
		if err == nil && code != want {
			err = fmt.Errorf("the worker exited with code %d, want %d", code, want)
		}
		return err
	})
	sc.Step(`^the worker output contains "(.*)"$`, func(want string) error {
		want = unescape(w.expand(want))
		if w.worker == nil {
			return fmt.Errorf("no worker was started")
		}
		return w.worker.waitOutput(want, 5*time.Second)
	})
	sc.Step(`^the engine no longer lists the function "([^"]*)"$`, w.functionGone)
	w.handshakeSteps(sc)
}

// runBinary runs the binary to completion with an environment whose engine
// URLs point at a listener that counts connection attempts.
func (w *world) runBinary(args string) error { return w.runBinaryIn("", args) }

// runBinaryIn is runBinary in directory dir ("": the test's).
func (w *world) runBinaryIn(dir, args string) error {
	bin, err := w.run.binary()
	if err != nil {
		return err
	}
	if w.procs.listener, err = newSilentListener(); err != nil {
		return err
	}
	url := w.procs.listener.url()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, strings.Fields(w.expand(args))...)
	cmd.Dir = dir
	cmd.Env = workerEnv(map[string]string{"III_URL": url, "III_ENGINE_URL": url})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	w.procs.exitCode, w.procs.stdout, w.procs.stderr = cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	if ctx.Err() != nil {
		return fmt.Errorf("%s %s did not exit within %s", bin, args, readyTimeout)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return err
	}
	// JSON output is checked as JSON, anything else as text.
	w.result, w.err = stdout.Bytes(), nil
	if !json.Valid(w.result) {
		w.result, _ = json.Marshal(stdout.String())
	}
	return nil
}

// startWorkerWith starts the binary with {"args": [...], "env": {...}} and
// does not wait for it: "the worker serves" does. Placeholders: {config}
// (the scenario's config file), {engine_url}, {dead_url} (a port nothing
// listens on).
func (w *world) startWorkerWith(doc *godog.DocString) error {
	if _, err := w.link(); err != nil {
		return err
	}
	cfg, err := w.writeConfig()
	if err != nil {
		return err
	}
	dead, err := newSilentListener()
	if err != nil {
		return err
	}
	deadURL := dead.url()
	dead.ln.Close() //nolint:errcheck // closed on purpose: nothing listens there now
	text := strings.NewReplacer("{config}", cfg, "{dead_url}", deadURL).Replace(w.expand(doc.Content))
	var spec struct {
		Args []string          `json:"args"`
		Env  map[string]string `json:"env"`
	}
	if err := json.Unmarshal([]byte(text), &spec); err != nil {
		return fmt.Errorf(`want {"args": [...], "env": {...}}: %w`, err)
	}
	return w.spawnWorker(spec.Args, spec.Env)
}

// functionGone waits until the engine no longer lists id: the local
// engine says so directly; an external one is asked again at every change
// it announces (engine::functions-available, engine::workers-available).
// Either way engine::functions::list must then not have it.
func (w *world) functionGone(id string) error {
	l, err := w.link()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.listingWait())
	defer cancel()
	if l.srv != nil {
		if err := l.srv.WaitFunctionGone(ctx, id); err != nil {
			return err
		}
	}
	return l.awaitListing(ctx, id, false)
}

// listingWait bounds a wait for the engine's function list to change. The
// local engine reports the change as it happens; an external one announces
// a change of functions only at its next check of them (every 5 s, as iii
// does), so the wait spans two of those.
func (l *link) listingWait() time.Duration {
	if l.srv != nil {
		return 3 * time.Second
	}
	return 12 * time.Second
}

// awaitListing asks engine::functions::list until it lists id (listed) or
// no longer does (!listed), asking again at every change the engine
// announces; ctx bounds the wait.
func (l *link) awaitListing(ctx context.Context, id string, listed bool) error {
	for {
		next := l.events.next()
		res, err := l.call(ctx, "engine::functions::list", map[string]any{"include_internal": true})
		if err != nil {
			return err
		}
		var out struct {
			Functions []functionRow `json:"functions"`
		}
		if err := json.Unmarshal(res, &out); err != nil {
			return err
		}
		if slices.ContainsFunc(out.Functions, func(f functionRow) bool { return f.ID == id }) == listed {
			return nil
		}
		select {
		case <-next:
		case <-ctx.Done():
			if listed {
				return fmt.Errorf("the engine does not list %s", id)
			}
			return fmt.Errorf("the engine still lists %s: %s", id, res)
		}
	}
}

// functionRow is a row of engine::functions::list.
type functionRow struct {
	ID string `json:"function_id"`
}

// rustTarget is the Rust target triple the release tooling names this
// platform by, written out here for the platforms releases are built for so
// that the manifest is checked against an independent source.
func rustTarget() string {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		return "x86_64-unknown-linux-gnu"
	case "linux/arm64":
		return "aarch64-unknown-linux-gnu"
	case "darwin/amd64":
		return "x86_64-apple-darwin"
	case "darwin/arm64":
		return "aarch64-apple-darwin"
	case "windows/amd64":
		return "x86_64-pc-windows-msvc"
	case "windows/arm64":
		return "aarch64-pc-windows-msvc"
	}
	return buildinfo.Target() // not a release platform: nothing independent to compare with
}
