package features

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// engineEnv names a real engine to run the suite against instead of the
// local one. When it is set and the engine does not answer, the suite fails.
const engineEnv = "III_ENGINE_WS_URL"

// Bounds on the harness's own waits.
const (
	connectTimeout = 5 * time.Second  // harness client to the engine
	callTimeout    = 10 * time.Second // one call made by a step
	readyTimeout   = 10 * time.Second // a worker process until it serves
	stopTimeout    = 10 * time.Second // a worker process after a signal
)

// run is what the whole test run shares: the engine, the harness client
// ("bdd harness", which makes the calls and serves the bdd:: helpers) and
// the worker binary. The engine and the binary are set up on first use, so
// a run of @pure scenarios needs neither.
type run struct {
	t   *testing.T
	tmp string // root of every scenario directory and of the binary

	engineOnce sync.Once
	engineErr  error
	srv        *engine.Engine // nil when the engine is external
	url        string
	client     *iii.Client

	binOnce sync.Once
	binErr  error
	bin     string

	// events is bumped by the engine's own trigger types
	// (engine::functions-available, engine::workers-available), to which
	// the harness subscribes when the engine is external: the waits that
	// the local engine answers directly re-check on them instead.
	events *pulse

	gateMu sync.Mutex
	gate   *slowGate // the current scenario's bdd::slow gate
}

// slowGate returns the current scenario's bdd::slow gate.
func (r *run) slowGate() *slowGate {
	r.gateMu.Lock()
	defer r.gateMu.Unlock()
	if r.gate == nil {
		r.gate = newSlowGate()
	}
	return r.gate
}

// newSlowGate gives the next scenario a closed bdd::slow gate; the
// previous one is opened, so none of its calls is left waiting.
func (r *run) newSlowGate() {
	r.gateMu.Lock()
	old := r.gate
	r.gate = newSlowGate()
	r.gateMu.Unlock()
	if old != nil {
		old.open()
	}
}

// engineEventTypes are the engine's own trigger types the harness
// subscribes to on an external engine.
var engineEventTypes = []string{"engine::functions-available", "engine::workers-available"}

func newRun(t *testing.T) *run {
	r := &run{t: t, tmp: t.TempDir(), events: newPulse()}
	t.Cleanup(r.close)
	if url := os.Getenv(engineEnv); url != "" {
		// A configured engine that does not answer fails the suite: the
		// Rust suite skipped silently and passed, which proved nothing.
		if err := r.engine(); err != nil {
			t.Fatalf("%s=%s: %v", engineEnv, url, err)
		}
	}
	return r
}

// engine starts the local engine (or attaches to $III_ENGINE_WS_URL) and
// connects the harness client, once.
func (r *run) engine() error {
	r.engineOnce.Do(func() {
		r.url = os.Getenv(engineEnv)
		if r.url == "" {
			srv, err := engine.Start(context.Background(), "127.0.0.1:0", engine.Options{})
			if err != nil {
				r.engineErr = err
				return
			}
			r.srv = srv
			r.url = srv.URL()
		}
		r.client = iii.New(iii.Options{
			URL: r.url, Name: "bdd harness", Logger: zap.NewNop(),
			ReconnectInitial: 100 * time.Millisecond, ReconnectMax: time.Second,
		})
		for _, f := range r.helperFunctions() {
			r.client.RegisterFunction(f)
		}
		if r.srv == nil {
			r.client.RegisterFunction(iii.Function{ID: "bdd::engine-events", Description: "bdd harness: engine changes",
				Handler: func(context.Context, iii.Request) (any, error) { r.events.bump(); return nil, nil }})
			for _, typ := range engineEventTypes {
				r.client.RegisterTrigger(iii.Trigger{ID: "bdd-harness-" + typ, Type: typ, FunctionID: "bdd::engine-events"})
			}
		}
		r.client.Start()
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		defer cancel()
		if err := r.client.WaitReady(ctx); err != nil {
			r.engineErr = fmt.Errorf("engine not reachable within %s: %w", connectTimeout, err)
			return
		}
		if r.srv == nil {
			// The engine provides these types itself: its answer to a
			// later call from this connection comes after the bindings.
			if _, err := r.client.Invoke(ctx, iii.Invocation{FunctionID: "engine::functions::list", Data: map[string]any{}, Timeout: callTimeout}); err != nil {
				r.engineErr = fmt.Errorf("engine::functions::list: %w", err)
			}
		}
	})
	return r.engineErr
}

// binary builds the worker binary, once.
func (r *run) binary() (string, error) {
	r.binOnce.Do(func() {
		r.bin = filepath.Join(r.tmp, "skills")
		cmd := exec.Command("go", "build", "-o", r.bin, "./cmd/skills")
		cmd.Dir = ".." // the module root; go test runs in features/
		if out, err := cmd.CombinedOutput(); err != nil {
			r.binErr = fmt.Errorf("go build ./cmd/skills: %v\n%s", err, out)
		}
	})
	return r.bin, r.binErr
}

// call makes one synchronous call through the engine.
func (r *run) call(ctx context.Context, functionID string, payload any) (json.RawMessage, error) {
	if err := r.engine(); err != nil {
		return nil, err
	}
	return r.client.Invoke(ctx, iii.Invocation{FunctionID: functionID, Data: payload, Timeout: callTimeout})
}

// waitBindings returns once the engine has handed every binding (id →
// trigger type) to its type's provider, so that the next change reaches
// them. The local engine says so directly. With an external engine,
// barrier makes a call from the connection that registered the bindings
// and returns once it is answered: the engine forwards a connection's
// bindings to their provider before any later call from that connection,
// and the provider handles its frames in order.
func (r *run) waitBindings(ctx context.Context, bindings map[string]string, barrier func(context.Context) error) error {
	if r.srv == nil {
		return barrier(ctx)
	}
	for id, typ := range bindings {
		if err := r.srv.WaitBinding(ctx, id); err != nil {
			return fmt.Errorf("binding %s of %s never became live: %w", id, typ, err)
		}
	}
	return nil
}

// pulse is a change counter to wait on: whoever changes something bumps
// it, whoever waits for a condition re-checks it at every bump.
type pulse struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced by bump
}

func newPulse() *pulse { return &pulse{changed: make(chan struct{})} }

func (p *pulse) bump() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.changed)
	p.changed = make(chan struct{})
}

// next returns a channel closed at the next bump; take it before checking
// the condition, so that no bump is missed.
func (p *pulse) next() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

func (r *run) close() {
	if r.client != nil {
		r.client.Close() //nolint:errcheck // the run is over
	}
	if r.srv != nil {
		r.srv.Close()
	}
}
