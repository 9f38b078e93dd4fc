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

// sharedStore is an Engine on one connection whose state another engine
// also writes: a write through this engine's store can be announced (a
// state event to the catalog) or not (a write through the other engine),
// as the test says. It answers state::list, state::get and
// engine::triggers::list; state::list_entries is missing, as on engines
// before 0.24.
type sharedStore struct {
	*lateEngine // the connection and the registrations; Call is sharedStore's

	mu     sync.Mutex
	order  []string
	values map[string]json.RawMessage
	gets   int
	// afterList runs once the next state::list's snapshot is taken,
	// before it is answered: a write racing the reconcile's listing.
	afterList func()
}

func newSharedStore() *sharedStore {
	return &sharedStore{lateEngine: newLateEngine(), values: map[string]json.RawMessage{}}
}

func (e *sharedStore) Call(_ context.Context, fn string, data any) (json.RawMessage, error) {
	e.mu.Lock()
	switch fn {
	case "engine::triggers::list":
		e.mu.Unlock()
		return json.RawMessage(`{"triggers":[{"id":"state"}]}`), nil
	case "state::list":
		values := make([]json.RawMessage, 0, len(e.order))
		for _, k := range e.order {
			values = append(values, e.values[k])
		}
		hook := e.afterList
		e.afterList = nil
		e.mu.Unlock()
		if hook != nil {
			hook()
		}
		return json.Marshal(values)
	case "state::get":
		e.gets++
		v := e.values[data.(map[string]string)["key"]]
		e.mu.Unlock()
		return v, nil
	}
	e.mu.Unlock()
	return nil, &iii.Error{Code: iii.CodeFunctionNotFound, Message: fmt.Sprintf("Function %s not found", fn)}
}

// write stores value at key (nil deletes it); announce delivers the
// state event of that write to the catalog, as the engine that did it
// would.
func (e *sharedStore) write(t *testing.T, key string, value json.RawMessage, announce bool) {
	t.Helper()
	e.mu.Lock()
	if value == nil {
		delete(e.values, key)
		e.order = slices.DeleteFunc(e.order, func(k string) bool { return k == key })
	} else {
		if _, ok := e.values[key]; !ok {
			e.order = append(e.order, key)
		}
		e.values[key] = value
	}
	e.mu.Unlock()
	e.lateEngine.mu.Lock()
	var h iii.Handler
	for _, f := range e.handlers {
		h = f // the catalog registers one function: its state events'
	}
	e.lateEngine.mu.Unlock()
	if !announce {
		return
	}
	payload, _ := json.Marshal(map[string]any{"scope": "skills", "key": key, "new_value": value})
	if _, err := h(context.Background(), iii.Request{Data: payload}); err != nil {
		t.Fatal(err)
	}
}

func (e *sharedStore) getCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gets
}

// changeLog records the catalog's Changes, and the contexts they came
// with.
type changeLog struct {
	mu    sync.Mutex
	got   []Change
	ctxs  []context.Context
	added chan struct{} // closed and replaced at every add; nil until awaited
}

func (l *changeLog) add(ctx context.Context, c Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, c)
	l.ctxs = append(l.ctxs, ctx)
	if l.added != nil {
		close(l.added)
		l.added = make(chan struct{})
	}
}

// await returns once n changes have been heard, failing t at waitTimeout.
func (l *changeLog) await(t *testing.T, n int) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		if l.added == nil {
			l.added = make(chan struct{})
		}
		got, ch := len(l.got), l.added
		l.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("%d changes announced within %s, want %d: %+v", got, waitTimeout, n, l.all())
		}
	}
}

// checkContexts fails unless every change came with a context that ended
// with the catalog (not context.Background, which never ends).
func (l *changeLog) checkContexts(t *testing.T, cat *Catalog) {
	t.Helper()
	cat.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, ctx := range l.ctxs {
		if ctx.Err() == nil {
			t.Errorf("change %+v came with a context the catalog's Close did not end", l.got[i])
		}
	}
}

func (l *changeLog) all() []Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

// startShared starts a catalog of scope "skills" over a sharedStore
// holding seed, reconciling every interval, and waits for its first load.
func startShared(t *testing.T, interval time.Duration, seed ...string) (*sharedStore, *Scope, *Catalog, *changeLog) {
	eng := newSharedStore()
	for _, id := range seed {
		eng.write(t, id, row(id, "seeded"), false)
	}
	scope := newTestScope(1 << 20)
	cat := New(eng, time.Second, nil, scope)
	cat.SetReconcileInterval(interval)
	changes := &changeLog{}
	cat.OnChange(changes.add)
	cat.Start()
	t.Cleanup(cat.Close)
	synctest.Wait()
	if !scope.Valid() {
		t.Fatal("the scope did not load")
	}
	return eng, scope, cat, changes
}

func bodyOf(s *Scope, key string) string {
	e, found, _ := s.Get(key)
	if !found {
		return "<absent>"
	}
	return e.Body
}

// Writes through another engine send this one no event: the reconcile
// finds each (a new key, a changed value, a deleted key) by the next pass
// after it, the interval bound, and not before; the first load announced
// nothing. On a fake clock (testing/synctest).
func TestReconcileFindsUnannouncedWritesWithinTheInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 5 * time.Second
		eng, scope, cat, changes := startShared(t, interval, "kept", "changed", "deleted")
		if got := changes.all(); len(got) != 0 {
			t.Fatalf("the first load announced %v, want nothing", got)
		}
		time.Sleep(time.Second)
		eng.write(t, "new", row("new", "through B"), false)
		eng.write(t, "changed", row("changed", "v2 through B"), false)
		eng.write(t, "deleted", nil, false)

		time.Sleep(interval - time.Second - time.Nanosecond)
		synctest.Wait()
		if got := bodyOf(scope, "new"); got != "<absent>" {
			t.Fatalf("found before the pass: new = %q", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		want := map[string]string{"kept": "seeded", "changed": "v2 through B", "deleted": "<absent>", "new": "through B"}
		for key, body := range want {
			if got := bodyOf(scope, key); got != body {
				t.Errorf("after the pass at %v: %s = %q, want %q", interval, key, got, body)
			}
		}
		got := changes.all()
		slices.SortFunc(got, func(a, b Change) int { return cmpString(a.Key, b.Key) })
		wantChanges := []Change{
			{Scope: "skills", Key: "changed", Found: FoundReconcile},
			{Scope: "skills", Key: "deleted", Removed: true, Found: FoundReconcile},
			{Scope: "skills", Key: "new", Found: FoundReconcile},
		}
		if diff := cmp.Diff(wantChanges, got); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
		f := cat.Freshness()
		if f.Reconciles != 1 || f.ByReconcile != 3 || f.ByEvent != 0 || f.ReconcileInterval != interval || f.LastReconcile.IsZero() || f.LastLoad.IsZero() {
			t.Errorf("freshness = %+v, want one pass that found 3 changes", f)
		}
	})
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A change is announced once however it is found: by the reconcile and
// then by its own late event, by the event and then by a pass, or by two
// passes. A pass over an unchanged scope reads nothing again.
func TestReconcileAnnouncesEachChangeOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 5 * time.Second
		eng, scope, cat, changes := startShared(t, interval, "a", "b")
		getsBefore := eng.getCalls()
		time.Sleep(interval)
		synctest.Wait()
		if n := eng.getCalls() - getsBefore; n != 0 {
			t.Errorf("a pass over an unchanged scope read %d keys again, want 0", n)
		}

		// Found by the reconcile, then its late event arrives.
		eng.write(t, "a", row("a", "v2"), false)
		time.Sleep(interval)
		synctest.Wait()
		eng.write(t, "a", row("a", "v2"), true) // the same value's event, late
		synctest.Wait()
		// Found by its event, then listed by the next pass.
		eng.write(t, "b", row("b", "v2"), true)
		synctest.Wait()
		time.Sleep(2 * interval)
		synctest.Wait()

		want := []Change{
			{Scope: "skills", Key: "a", Found: FoundReconcile},
			{Scope: "skills", Key: "b", Found: FoundEvent},
		}
		if diff := cmp.Diff(want, changes.all()); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
		if got := bodyOf(scope, "a") + " " + bodyOf(scope, "b"); got != "v2 v2" {
			t.Errorf("bodies %q, want v2 v2", got)
		}
		if f := cat.Freshness(); f.ByReconcile != 1 || f.ByEvent != 1 || f.Reconciles != 4 {
			t.Errorf("freshness = %+v, want 4 passes, 1 change by reconcile, 1 by event", f)
		}
	})
}

// A write that lands while a pass is listing (after its snapshot, before
// the pass compares) is newer than the listing: the mirror ends with the
// newer value, never the listed one, and the change is announced once.
func TestReconcileNeverPutsTheListedValueOverANewerOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 5 * time.Second
		eng, scope, _, changes := startShared(t, interval, "k")
		eng.write(t, "k", row("k", "v1 unannounced"), false)
		eng.mu.Lock()
		eng.afterList = func() { eng.write(t, "k", row("k", "v2 newer"), true) }
		eng.mu.Unlock()
		time.Sleep(interval)
		synctest.Wait()
		if got := bodyOf(scope, "k"); got != "v2 newer" {
			t.Errorf("k = %q after a pass whose listing was older than a write, want the newer value", got)
		}
		got := changes.all()
		if len(got) != 1 || got[0].Key != "k" || got[0].Removed {
			t.Errorf("changes = %+v, want one change of k", got)
		}
		time.Sleep(interval)
		synctest.Wait()
		if got := bodyOf(scope, "k"); got != "v2 newer" || len(changes.all()) != 1 {
			t.Errorf("after the next pass: k = %q, changes %+v", got, changes.all())
		}
	})
}

// Without an interval nothing is listed again, but ReconcileNow runs a
// pass.
func TestReconcileOffUnlessAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng, scope, cat, _ := startShared(t, 0, "k")
		eng.write(t, "k", row("k", "v2"), false)
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := bodyOf(scope, "k"); got != "seeded" {
			t.Fatalf("k = %q with no reconcile, want the loaded value", got)
		}
		cat.ReconcileNow()
		synctest.Wait()
		if got := bodyOf(scope, "k"); got != "v2" {
			t.Errorf("k = %q after ReconcileNow, want v2", got)
		}
	})
}

// On the local engine: a write it does not announce (another engine's,
// WriteStateUnannounced) is found by a pass; the listing's bytes and the
// read's agree, so the next pass reads nothing again; a change made while
// the worker was away is announced by the load on the new connection, an
// unchanged row is not.
func TestReconcileOnTheLocalEngine(t *testing.T) {
	var calls getCounter
	changes := &changeLog{}
	r := newRigWith(t, engine.Options{}, rigSetup{
		seed: func(e *engine.Engine) {
			// Rows written before the worker, with no state event: the
			// engine delivers its events from a queue and matches the
			// bindings at delivery, so a seed's event could reach the
			// catalog after its load and be the "event" that finds the
			// first unannounced write below.
			for _, id := range []string{"same", "edited", "gone"} {
				if err := e.WriteStateUnannounced("skills", id, row(id, "seeded")); err != nil {
					t.Fatal(err)
				}
			}
		},
		wrap:      func(c *iii.Client) Engine { calls.Engine = c; return &calls },
		configure: func(c *Catalog) { c.OnChange(changes.add) },
	})
	r.until(t, "loaded", func() bool { return r.scope.Valid() && r.scope.Len() == 3 })

	if err := r.srv.WriteStateUnannounced("skills", "edited", row("edited", "through B")); err != nil {
		t.Fatal(err)
	}
	r.cat.ReconcileNow()
	r.until(t, "found the unannounced write", func() bool { b, _ := r.body("edited"); return b == "through B" })

	// A second pass with one more unannounced write: only that key is read.
	gets := calls.count()
	if err := r.srv.WriteStateUnannounced("skills", "marker", row("marker", "m")); err != nil {
		t.Fatal(err)
	}
	r.cat.ReconcileNow()
	r.until(t, "found the marker", func() bool { _, ok := r.body("marker"); return ok })
	if n := calls.count() - gets; n != 1 {
		t.Errorf("the second pass read %d keys again, want 1 (the marker): the listing's bytes and state::get's differ", n)
	}

	r.srv.DropConnections()
	if err := r.srv.WriteStateUnannounced("skills", "gone", nil); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WriteStateUnannounced("skills", "edited", row("edited", "while away")); err != nil {
		t.Fatal(err)
	}
	r.until(t, "reloaded", func() bool { b, _ := r.body("edited"); return b == "while away" })
	want := []Change{
		{Scope: "skills", Key: "edited", Found: FoundReconcile},
		{Scope: "skills", Key: "marker", Found: FoundReconcile},
		{Scope: "skills", Key: "edited", Found: FoundLoad},
		{Scope: "skills", Key: "gone", Removed: true, Found: FoundLoad},
	}
	// The reload serves its snapshot, then announces what it changed
	// (finishLoad): the scope's last change comes before them.
	changes.await(t, len(want))
	if diff := cmp.Diff(want, changes.all()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	changes.checkContexts(t, r.cat)
}

// getCounter counts the state::get calls the catalog makes.
type getCounter struct {
	Engine
	mu   sync.Mutex
	gets int
}

func (g *getCounter) Call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	if fn == "state::get" {
		g.mu.Lock()
		g.gets++
		g.mu.Unlock()
	}
	return g.Engine.Call(ctx, fn, data)
}

func (g *getCounter) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gets
}

// The skill and prompt scopes read a listed value's key without decoding
// it.
func TestScopeKeyOfReadsTheKeyField(t *testing.T) {
	for _, tc := range []struct {
		s    *Scope
		raw  string
		want string
		ok   bool
	}{
		{NewSkillsScope("skills", 0), `{"id":"a/b","skill":"# x","registered_at":"t"}`, "a/b", true},
		{NewSkillsScope("skills", 0), `{"skill":"# x"}`, "", false},
		{NewSkillsScope("skills", 0), `{"id":7}`, "", false},
		{NewPromptsScope("prompts"), `{"name":"p","description":"d"}`, "p", true},
		{newTestScope(0), `{"id":"t","skill":"x"}`, "t", true},
	} {
		got, ok := tc.s.keyOf(json.RawMessage(tc.raw))
		if got != tc.want || ok != tc.ok {
			t.Errorf("keyOf(%s) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}

// A skill row whose bytes differ but which says the same (another
// writer's unknown field, an engine that writes its bytes another way) is
// taken, but is no change to announce; a new registered_at or body is.
func TestSkillRowWithTheSameContentIsNoChange(t *testing.T) {
	s := NewSkillsScope("skills", 1<<20)
	s.EndLoad([]json.RawMessage{json.RawMessage(`{"id":"a","skill":"# A","registered_at":"t1"}`)})
	for _, tc := range []struct {
		raw     string
		changed bool
	}{
		{`{"id":"a","skill":"# A","registered_at":"t1","tools":[]}`, false},
		{`{"registered_at":"t1","skill":"# A","id":"a"}`, false},
		{`{"id":"a","skill":"# A","registered_at":"t2"}`, true},
		{`{"id":"a","skill":"# A, edited","registered_at":"t2"}`, true},
	} {
		changed, err := s.applyIfUnchanged("a", json.RawMessage(tc.raw), s.Gen("a"))
		if err != nil || changed != tc.changed {
			t.Errorf("applying %s: changed %v (%v), want %v", tc.raw, changed, err, tc.changed)
		}
		if !s.seen("a", sumOf([]byte(tc.raw)), 1) {
			t.Errorf("after applying %s the entry does not hold its bytes' hash", tc.raw)
		}
	}
}

// The state event of the worker's own delete may arrive before the
// delete's answer: it is held for the answer, as a write's is, so the
// delete is never taken for another writer's change (announced twice).
func TestOwnDeleteEventBeforeItsAnswerIsNoChange(t *testing.T) {
	s := NewSkillsScope("skills", 1<<20)
	s.EndLoad([]json.RawMessage{json.RawMessage(`{"id":"a","skill":"# A","registered_at":"t1"}`)})
	var reread []string
	s.onWrite = func(key string) { reread = append(reread, key) }
	s.beginOwnWrite("a")
	if !s.ownEvent("a", deletedSum) {
		t.Fatal("the delete's event, before its answer, was not held for the answer")
	}
	s.endOwnDelete("a")
	if _, found, _ := s.Get("a"); found {
		t.Error("the entry is there after its own delete answered")
	}
	if changed, err := s.applyIfUnchanged("a", nil, s.Gen("a")); changed || err != nil {
		t.Errorf("the read after the delete: changed %v (%v), want no change", changed, err)
	}
	if len(s.own) != 0 || !slices.Equal(reread, []string{"a"}) {
		t.Errorf("own writes left %v, re-reads %v; want none, and one re-read of a", s.own, reread)
	}
}
