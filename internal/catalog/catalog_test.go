package catalog

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// waitTimeout bounds every wait for the catalog to catch up.
const waitTimeout = 10 * time.Second

// rig is a local engine, a worker client with a catalog of scope
// "skills", and a second client writing as another worker would.
type rig struct {
	srv    *engine.Engine
	worker *iii.Client
	scope  *Scope
	cat    *Catalog
	writer *iii.Client
	logs   *observer.ObservedLogs
}

// rigSetup adapts a rig: seed writes to the engine before the worker
// connects, wrap puts an Engine between the catalog and the worker's
// client, configure sets the catalog's fields before it starts, budget
// bounds the scope's bodies (0: 1 MiB).
type rigSetup struct {
	seed      func(*engine.Engine)
	wrap      func(*iii.Client) Engine
	configure func(*Catalog)
	budget    int64
}

func newRig(t *testing.T, opts engine.Options) *rig {
	t.Helper()
	return newRigWith(t, opts, rigSetup{})
}

func newRigWith(t *testing.T, opts engine.Options, setup rigSetup) *rig {
	t.Helper()
	srv := iiitest.NewServerWith(t, opts)
	if setup.seed != nil {
		setup.seed(srv)
	}
	r := startCatalog(t, srv, setup)
	writer := iii.New(iii.Options{URL: srv.URL(), Name: "other-worker"})
	writer.Start()
	t.Cleanup(func() { writer.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := writer.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	r.writer = writer
	return r
}

// startCatalog starts a worker client with a catalog of scope "skills"
// on srv (setup.seed is not run); the rig has no writer.
func startCatalog(t *testing.T, srv *engine.Engine, setup rigSetup) *rig {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	worker := iii.New(iii.Options{URL: srv.URL(), Name: "skills", ReconnectInitial: 10 * time.Millisecond, ReconnectMax: 50 * time.Millisecond})
	var eng Engine = worker
	if setup.wrap != nil {
		eng = setup.wrap(worker)
	}
	budget := setup.budget
	if budget == 0 {
		budget = 1 << 20
	}
	scope := newTestScope(budget)
	cat := New(eng, 5*time.Second, zap.New(core), scope)
	if setup.configure != nil {
		setup.configure(cat)
	}
	worker.Start()
	cat.Start()
	t.Cleanup(func() {
		cat.Close()
		worker.Close()
	})
	return &rig{srv: srv, worker: worker, scope: scope, cat: cat, logs: logs}
}

// untilMode waits until the catalog's mode is mode, re-checking at each
// of its decisions.
func (r *rig) untilMode(t *testing.T, mode string) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		ch := r.cat.ModeChanged()
		if r.cat.Mode() == mode {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("mode = %q, want %q (within %s)", r.cat.Mode(), mode, waitTimeout)
		}
	}
}

// until waits for cond on the scope, re-checking at each of its changes.
func (r *rig) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		ch := r.scope.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("the catalog never %s (within %s)", what, waitTimeout)
		}
	}
}

func (r *rig) write(t *testing.T, fn string, data any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := r.writer.Call(ctx, fn, data); err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
}

func (r *rig) body(key string) (string, bool) {
	e, found, auth := r.scope.Get(key)
	if !found || !auth {
		return "", false
	}
	return e.Body, true
}

// The catalog loads the scope on connecting, then follows every write made
// by another worker through the engine's state trigger (D17, D18).
func TestCatalogLoadsAndFollowsAnotherWorkersWrites(t *testing.T) {
	r := newRig(t, engine.Options{})
	if err := r.srv.SetState("skills", "seeded", json.RawMessage(`{"id":"seeded","skill":"from before"}`)); err != nil {
		t.Fatal(err)
	}
	r.until(t, "loaded the seeded row", func() bool { b, ok := r.body("seeded"); return ok && b == "from before" })
	if r.cat.Mode() != ModeLive {
		t.Errorf("mode = %q, want %q", r.cat.Mode(), ModeLive)
	}

	r.write(t, "state::set", map[string]any{"scope": "skills", "key": "new", "value": map[string]string{"id": "new", "skill": "v1"}})
	r.until(t, "saw a created row", func() bool { b, ok := r.body("new"); return ok && b == "v1" })
	r.write(t, "state::set", map[string]any{"scope": "skills", "key": "new", "value": map[string]string{"id": "new", "skill": "v2"}})
	r.until(t, "saw an updated row", func() bool { b, ok := r.body("new"); return ok && b == "v2" })
	r.write(t, "state::delete", map[string]any{"scope": "skills", "key": "seeded"})
	r.until(t, "saw a deleted row", func() bool { _, found, auth := r.scope.Get("seeded"); return auth && !found })
	r.write(t, "state::set", map[string]any{"scope": "elsewhere", "key": "x", "value": map[string]string{"id": "x"}})
	if _, found, _ := r.scope.Get("x"); found {
		t.Error("a write to another scope reached the catalog")
	}
}

// After the engine restarts (state kept, every registration gone), the
// worker reconnects and the catalog loads again, including what changed
// while it was away (D18: full reload after every reconnect).
func TestCatalogReloadsAfterReconnect(t *testing.T) {
	r := newRig(t, engine.Options{})
	r.until(t, "loaded", r.scope.Valid)
	r.srv.DropConnections()
	// Written while the worker is away: no event will ever tell it.
	if err := r.srv.SetState("skills", "while-away", json.RawMessage(`{"id":"while-away","skill":"missed event"}`)); err != nil {
		t.Fatal(err)
	}
	r.until(t, "reloaded after the reconnect", func() bool { b, ok := r.body("while-away"); return ok && b == "missed event" })
}

// An engine without the state trigger type: the catalog says so once and
// never vouches for anything, so every read goes to the engine (D18).
func TestCatalogFallsBackToReadThroughWithoutTheStateTrigger(t *testing.T) {
	r := newRig(t, engine.Options{WithoutStateTrigger: true})
	r.untilMode(t, ModeReadThrough)
	if r.scope.Valid() {
		t.Error("the scope claims to be loaded without a state trigger")
	}
	warnings := r.logs.FilterMessageSnippet("cannot follow state changes").All()
	if len(warnings) != 1 || !strings.Contains(warnings[0].ContextMap()["error"].(string), "no state trigger type") {
		t.Errorf("warnings = %+v, want one naming the missing state trigger type", warnings)
	}
}

// A scope invalidated outside a load (a write the mirror could not apply,
// a change it could not read) is loaded again at once, not left to read
// through until the next connection.
func TestCatalogReloadsAnInvalidatedScope(t *testing.T) {
	r := newRig(t, engine.Options{})
	r.until(t, "loaded", r.scope.Valid)
	if err := r.srv.SetState("skills", "later", json.RawMessage(`{"id":"later","skill":"seen by the reload"}`)); err != nil {
		t.Fatal(err)
	}
	r.scope.Invalidate()
	r.until(t, "reloaded", func() bool { b, ok := r.body("later"); return ok && b == "seen by the reload" })
}

// A state event whose row does not decode leaves the entry as it was (the
// last value that decoded) and is logged once, naming the key and the
// reason; the next good row is applied as usual.
func TestCatalogKeepsTheEntryWhenAChangedRowDoesNotDecode(t *testing.T) {
	r := newRig(t, engine.Options{})
	r.write(t, "state::set", map[string]any{"scope": "skills", "key": "k", "value": map[string]string{"id": "k", "skill": "good"}})
	r.until(t, "saw the good row", func() bool { b, ok := r.body("k"); return ok && b == "good" })

	r.write(t, "state::set", map[string]any{"scope": "skills", "key": "k", "value": map[string]any{"id": "k", "skill": 42}})
	// The marker, written after the bad row, is applied after it: events
	// are delivered and read again in order.
	r.write(t, "state::set", map[string]any{"scope": "skills", "key": "marker", "value": map[string]string{"id": "marker", "skill": "m"}})
	r.until(t, "saw the marker", func() bool { _, ok := r.body("marker"); return ok })
	if b, ok := r.body("k"); !ok || b != "good" {
		t.Errorf("k = %q (found %v) after a row that does not decode, want the last good body", b, ok)
	}
	warnings := r.logs.FilterMessageSnippet("does not decode").All()
	if len(warnings) != 1 {
		t.Fatalf("%d warnings, want 1: %+v", len(warnings), warnings)
	}
	if f := warnings[0].ContextMap(); f["key"] != "k" || f["reason"] != "skill is not a string" {
		t.Errorf("warning fields = %v, want key k and the reason", f)
	}

	r.write(t, "state::set", map[string]any{"scope": "skills", "key": "k", "value": map[string]string{"id": "k", "skill": "fixed"}})
	r.until(t, "applied the next good row", func() bool { b, ok := r.body("k"); return ok && b == "fixed" })
}
