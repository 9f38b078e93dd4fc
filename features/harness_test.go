package features

import (
	"context"
	"encoding/json"
	"errors"
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
}

func newRun(t *testing.T) *run {
	r := &run{t: t, tmp: t.TempDir()}
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
		for _, f := range helperFunctions() {
			r.client.RegisterFunction(f)
		}
		r.client.Start()
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		defer cancel()
		if err := r.client.WaitReady(ctx); err != nil {
			r.engineErr = fmt.Errorf("engine not reachable within %s: %w", connectTimeout, err)
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
// them. The local engine says so directly; a real engine lists live (not
// parked) bindings; an engine with neither gets a short grace period (its
// forward to the provider precedes any later call from this connection).
func (r *run) waitBindings(ctx context.Context, bindings map[string]string) error {
	for id, typ := range bindings {
		if r.srv != nil {
			if err := r.srv.WaitBinding(ctx, id); err != nil {
				return fmt.Errorf("binding %s of %s never became live: %w", id, typ, err)
			}
			continue
		}
		if err := r.pollBinding(ctx, id, typ); errors.Is(err, errNoBindingList) {
			time.Sleep(100 * time.Millisecond)
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// errNoBindingList: the engine has no engine::registered-triggers::list.
var errNoBindingList = errors.New("engine::registered-triggers::list is not available")

func (r *run) pollBinding(ctx context.Context, id, typ string) error {
	for {
		res, err := r.call(ctx, "engine::registered-triggers::list", map[string]any{"trigger_type": typ})
		if e, ok := errors.AsType[*iii.Error](err); ok && e.Code == iii.CodeFunctionNotFound {
			return errNoBindingList
		}
		if err == nil {
			var out struct {
				RegisteredTriggers []struct {
					ID string `json:"id"`
				} `json:"registered_triggers"`
			}
			if json.Unmarshal(res, &out) == nil {
				for _, b := range out.RegisteredTriggers {
					if b.ID == id {
						return nil
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("binding %s of %s never became live: %w", id, typ, errors.Join(ctx.Err(), err))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (r *run) close() {
	if r.client != nil {
		r.client.Close() //nolint:errcheck // the run is over
	}
	if r.srv != nil {
		r.srv.Close()
	}
}
