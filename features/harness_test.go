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

// run is what the whole test run shares: the engine link (the engine and
// the harness client, "bdd harness", which makes the calls and serves the
// bdd:: helpers) and the worker binary. The engine and the binary are set
// up on first use, so a run of @pure scenarios needs neither. A scenario
// may run an engine of its own instead (world.own).
type run struct {
	t   *testing.T
	tmp string // root of every scenario directory and of the binary

	engineOnce sync.Once
	engineErr  error
	shared     *link

	binOnce sync.Once
	binErr  error
	bin     string

	gateMu sync.Mutex
	gate   *slowGate // the current scenario's bdd::slow gate
}

// link is the harness on one engine: the engine when it is local, its
// URL, and the harness client, connected and serving the bdd:: helpers.
type link struct {
	srv    *engine.Engine // nil when the engine is external
	url    string
	client *iii.Client

	// namespaces is true for a local engine that follows engine 0.23's
	// namespace rules (engine.Options.Namespaces): a raw peer's
	// registrations wait there for its engine::workers::register call.
	namespaces bool

	// events is bumped by the engine's own trigger types
	// (engine::functions-available, engine::workers-available), to which
	// the harness subscribes when the engine is external: the waits that
	// the local engine answers directly re-check on them instead.
	events *pulse
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
	r := &run{t: t, tmp: t.TempDir()}
	t.Cleanup(r.close)
	if url := os.Getenv(engineEnv); url != "" {
		// A configured engine that does not answer fails the suite: the
		// Rust suite skipped silently and passed, which proved nothing.
		if _, err := r.engine(); err != nil {
			t.Fatalf("%s=%s: %v", engineEnv, url, err)
		}
	}
	return r
}

// engine starts the shared local engine (or attaches to
// $III_ENGINE_WS_URL) and connects the harness client to it, once.
func (r *run) engine() (*link, error) {
	r.engineOnce.Do(func() {
		if url := os.Getenv(engineEnv); url != "" {
			r.shared, r.engineErr = r.connect(nil, url)
			return
		}
		r.shared, r.engineErr = r.startEngine(engine.Options{})
	})
	return r.shared, r.engineErr
}

// startEngine starts a local engine and connects the harness to it.
func (r *run) startEngine(opts engine.Options) (*link, error) {
	srv, err := engine.Start(context.Background(), "127.0.0.1:0", opts)
	if err != nil {
		return nil, err
	}
	l, err := r.connect(srv, srv.URL())
	if err != nil {
		srv.Close()
		return nil, err
	}
	l.namespaces = opts.Namespaces
	return l, nil
}

// connect connects a harness client, serving the bdd:: helpers, to the
// engine at url (srv when it is local).
func (r *run) connect(srv *engine.Engine, url string) (*link, error) {
	l := &link{srv: srv, url: url, events: newPulse()}
	l.client = iii.New(iii.Options{
		URL: url, Name: "bdd harness", Logger: zap.NewNop(),
		ReconnectInitial: 100 * time.Millisecond, ReconnectMax: time.Second,
	})
	for _, f := range r.helperFunctions() {
		l.client.RegisterFunction(f)
	}
	if srv == nil {
		l.client.RegisterFunction(iii.Function{ID: "bdd::engine-events", Description: "bdd harness: engine changes",
			Handler: func(context.Context, iii.Request) (any, error) { l.events.bump(); return nil, nil }})
		for _, typ := range engineEventTypes {
			l.client.RegisterTrigger(iii.Trigger{ID: "bdd-harness-" + typ, Type: typ, FunctionID: "bdd::engine-events"})
		}
	}
	l.client.Start()
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	if err := l.client.WaitReady(ctx); err != nil {
		l.client.Close() //nolint:errcheck // it never served
		return nil, fmt.Errorf("engine not reachable within %s: %w", connectTimeout, err)
	}
	if srv == nil {
		// The engine provides these types itself: its answer to a
		// later call from this connection comes after the bindings.
		if _, err := l.client.Invoke(ctx, iii.Invocation{FunctionID: "engine::functions::list", Data: map[string]any{}, Timeout: callTimeout}); err != nil {
			l.client.Close() //nolint:errcheck // it never served
			return nil, fmt.Errorf("engine::functions::list: %w", err)
		}
	}
	return l, nil
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
func (l *link) call(ctx context.Context, functionID string, payload any) (json.RawMessage, error) {
	return l.callIn(ctx, "", functionID, payload)
}

// callIn is call naming namespace ns ("": none, so the engine resolves
// the function in its default namespace, as for the harness's other calls).
func (l *link) callIn(ctx context.Context, ns, functionID string, payload any) (json.RawMessage, error) {
	return l.client.Invoke(ctx, iii.Invocation{FunctionID: functionID, Data: payload, Timeout: callTimeout, Namespace: ns})
}

// waitBindings returns once the engine has handed every binding (id →
// trigger type) to its type's provider, so that the next change reaches
// them. The local engine says so directly. With an external engine,
// barrier makes a call from the connection that registered the bindings
// and returns once it is answered: the engine forwards a connection's
// bindings to their provider before any later call from that connection,
// and the provider handles its frames in order. providerNS is the
// namespace of the types' provider ("": the default one).
func (l *link) waitBindings(ctx context.Context, providerNS string, bindings map[string]string, barrier func(context.Context) error) error {
	if l.srv == nil {
		return barrier(ctx)
	}
	for id, typ := range bindings {
		wait := l.srv.WaitBinding
		if providerNS != "" {
			wait = func(ctx context.Context, id string) error { return l.srv.WaitBindingIn(ctx, providerNS, id) }
		}
		if err := wait(ctx, id); err != nil {
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
	if r.shared != nil {
		r.shared.close()
	}
}

// local is the link's local engine; nil when there is none (or no link).
func (l *link) local() *engine.Engine {
	if l == nil {
		return nil
	}
	return l.srv
}

// close disconnects the harness client and closes the engine if local.
func (l *link) close() {
	l.client.Close() //nolint:errcheck // the link is over
	if l.srv != nil {
		l.srv.Close()
	}
}
