package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// A state worker that registers after the skills worker (iii 0.24): the
// catalog starts read-through, waits on the engine's events, and within a
// second of the state trigger type appearing it is live with every row
// loaded, on the same connection; it then drops its watch bindings and
// follows writes as usual.
func TestCatalogGoesLiveWhenTheStateWorkerRegistersLate(t *testing.T) {
	r := newRig(t, engine.Options{StateWorkerLate: true, StateListEntries: true})
	r.untilMode(t, ModeReadThrough)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, id := range r.cat.watchTriggerIDs() {
		if err := r.srv.WaitBinding(ctx, id); err != nil {
			t.Fatalf("the catalog's watch binding %s: %v", id, err)
		}
	}
	if err := r.srv.SetState("skills", "seeded", json.RawMessage(`{"id":"seeded","skill":"written before the state worker came"}`)); err != nil {
		t.Fatal(err)
	}
	connection := r.worker.Connection()

	start := time.Now()
	r.srv.StartState()
	r.untilMode(t, ModeLive)
	r.until(t, "loaded the seeded row", func() bool { b, ok := r.body("seeded"); return ok && b == "written before the state worker came" })
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("live and loaded %v after the state worker registered, want within a second", elapsed)
	}
	if got := r.worker.Connection(); got != connection {
		t.Errorf("connection %s, then %s: want no reconnect", connection, got)
	}

	if err := r.srv.WaitFunctionGone(ctx, r.cat.watchFunctionID()); err != nil {
		t.Errorf("the watch function after going live: %v", err)
	}
	for _, b := range r.srv.Bindings() {
		if slices.Contains(r.cat.watchTriggerIDs(), b.ID) {
			t.Errorf("watch binding %s still registered after going live", b.ID)
		}
	}
	r.write(t, "state::set", map[string]any{"scope": "skills", "key": "after", "value": map[string]string{"id": "after", "skill": "followed"}})
	r.until(t, "followed a write", func() bool { b, ok := r.body("after"); return ok && b == "followed" })
	if n := len(r.logs.FilterMessageSnippet("cannot follow state changes").All()); n != 1 {
		t.Errorf("%d read-through warnings, want 1", n)
	}
}

// lateEngine is an Engine on one connection whose state trigger type
// appears when the test says so; it records engine::triggers::list calls
// at their fake-clock offsets, and the watch's registrations.
type lateEngine struct {
	start time.Time

	mu         sync.Mutex
	present    bool
	asked      []string
	handlers   map[string]iii.Handler
	triggers   map[string]iii.Trigger
	unregister []string
}

func newLateEngine() *lateEngine {
	return &lateEngine{start: time.Now(), handlers: map[string]iii.Handler{}, triggers: map[string]iii.Trigger{}}
}

func (e *lateEngine) Call(_ context.Context, fn string, _ any) (json.RawMessage, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch fn {
	case "engine::triggers::list":
		e.asked = append(e.asked, time.Since(e.start).String())
		if e.present {
			return json.RawMessage(`{"triggers":[{"id":"state"}]}`), nil
		}
		return json.RawMessage(`{"triggers":[]}`), nil
	case "state::list":
		return json.RawMessage(`[]`), nil
	}
	return nil, &iii.Error{Code: iii.CodeFunctionNotFound, Message: fmt.Sprintf("Function %s not found", fn)}
}

func (e *lateEngine) WaitConnection(ctx context.Context, previous string) (string, error) {
	if previous == "" {
		return "w1", nil
	}
	<-ctx.Done()
	return "", ctx.Err()
}

func (e *lateEngine) Connection() string  { return "w1" }
func (e *lateEngine) OnDisconnect(func()) {}

func (e *lateEngine) RegisterFunction(f iii.Function) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.handlers[f.ID] = f.Handler
}

func (e *lateEngine) RegisterTrigger(t iii.Trigger) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.triggers[t.ID] = t
}

func (e *lateEngine) UnregisterFunction(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.handlers, id)
	e.unregister = append(e.unregister, id)
}

func (e *lateEngine) UnregisterTrigger(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.triggers, id)
	e.unregister = append(e.unregister, id)
}

func (e *lateEngine) setPresent() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.present = true
}

// event delivers an engine change event to the function bound to typ.
func (e *lateEngine) event(t *testing.T, typ string) {
	t.Helper()
	e.mu.Lock()
	var h iii.Handler
	for _, tr := range e.triggers {
		if tr.Type == typ {
			h = e.handlers[tr.FunctionID]
		}
	}
	e.mu.Unlock()
	if h == nil {
		t.Fatalf("nothing bound to %s", typ)
	}
	if _, err := h(context.Background(), iii.Request{Data: json.RawMessage(`{"event":"worker_connected","worker_id":"w2"}`)}); err != nil {
		t.Fatal(err)
	}
}

func (e *lateEngine) log() (asked, unregistered []string, triggers map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tr := map[string]string{}
	for id, trig := range e.triggers {
		tr[id] = trig.Type
	}
	return slices.Clone(e.asked), slices.Clone(e.unregister), tr
}

// With no event at all, the catalog asks again on a backoff, from
// watchMinDelay doubling to watchMaxDelay, and goes live at the first
// answer that has the type. On a fake clock (testing/synctest).
func TestStateWatchPollsOnABoundedBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := newLateEngine()
		scope := newTestScope(1 << 20)
		cat := New(eng, time.Second, nil, scope)
		cat.Start()
		t.Cleanup(cat.Close)

		time.Sleep(10 * time.Second)
		synctest.Wait()
		if cat.Mode() != ModeReadThrough || scope.Valid() {
			t.Fatalf("at 10s without the type: mode %q, valid %v", cat.Mode(), scope.Valid())
		}
		_, _, triggers := eng.log()
		ids := cat.watchTriggerIDs()
		want := map[string]string{
			ids[0]: workersAvailableType,
			ids[1]: functionsAvailableType,
			"skills-catalog-" + cat.suffix + "-skills": StateTriggerType,
		}
		if diff := cmp.Diff(want, triggers); diff != "" {
			t.Errorf("bindings while waiting (-want +got):\n%s", diff)
		}
		eng.setPresent()
		time.Sleep(2750*time.Millisecond - time.Nanosecond) // the next ask is at 12.75s
		synctest.Wait()
		if scope.Valid() {
			t.Fatal("live before the poll that finds the type")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if cat.Mode() != ModeLive || !scope.Valid() {
			t.Errorf("at 12.75s: mode %q, valid %v; want live and loaded", cat.Mode(), scope.Valid())
		}
		asked, unregistered, triggers := eng.log()
		wantAsked := []string{"0s", "250ms", "750ms", "1.75s", "3.75s", "7.75s", "12.75s"}
		if diff := cmp.Diff(wantAsked, asked); diff != "" {
			t.Errorf("engine::triggers::list asked at (-want +got):\n%s", diff)
		}
		wantGone := []string{ids[0], ids[1], cat.watchFunctionID()}
		if diff := cmp.Diff(wantGone, unregistered); diff != "" || len(triggers) != 1 {
			t.Errorf("after going live: bindings %v; unregistered (-want +got):\n%s", triggers, diff)
		}
	})
}

// An event from the engine makes the catalog ask at once, and brings the
// next poll back to watchMinDelay: a state worker's connection is
// announced before its trigger type is registered, which the poll soon
// after finds.
func TestStateWatchAsksAtOnceOnAnEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := newLateEngine()
		scope := newTestScope(1 << 20)
		cat := New(eng, time.Second, nil, scope)
		cat.Start()
		t.Cleanup(cat.Close)

		time.Sleep(time.Second) // asked at 0s, 250ms, 750ms; next at 1.75s
		synctest.Wait()
		eng.event(t, workersAvailableType) // the type is not there yet: next at 1.25s
		synctest.Wait()
		time.Sleep(200 * time.Millisecond)
		eng.setPresent() // registered without an event of its own
		time.Sleep(50*time.Millisecond - time.Nanosecond)
		synctest.Wait()
		if scope.Valid() {
			t.Fatal("live before the poll that finds the type")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if cat.Mode() != ModeLive || !scope.Valid() {
			t.Errorf("at 1.25s: mode %q, valid %v; want live and loaded", cat.Mode(), scope.Valid())
		}
		asked, _, _ := eng.log()
		if diff := cmp.Diff([]string{"0s", "250ms", "750ms", "1s", "1.25s"}, asked); diff != "" {
			t.Errorf("engine::triggers::list asked at (-want +got):\n%s", diff)
		}
	})
}
