package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// callLog is the worker's client with every call it makes recorded as
// "function key" (the key of a state call).
type callLog struct {
	*iii.Client

	mu    sync.Mutex
	calls []string
}

func (l *callLog) Call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	entry := fn
	if b, err := json.Marshal(data); err == nil {
		if m, err := wire.Members(b, "key"); err == nil && m[0] != nil {
			key, _ := wire.String(m[0])
			entry += " " + key
		}
	}
	l.mu.Lock()
	l.calls = append(l.calls, entry)
	l.mu.Unlock()
	return l.Client.Call(ctx, fn, data)
}

// take returns the calls recorded since the last take.
func (l *callLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// registerPathRig is a worker whose calls are recorded, on a real engine,
// and another client writing to the same state as another worker would.
type registerPathRig struct {
	srv    *engine.Engine
	calls  *callLog
	r      *replica
	other  *iii.Client
	marker int
}

func newRegisterPathRig(t *testing.T, functions ...iii.Function) *registerPathRig {
	t.Helper()
	srv := iiitest.NewServer(t)
	other := iii.New(iii.Options{URL: srv.URL(), Name: "other-worker"})
	for _, f := range functions {
		other.RegisterFunction(f)
	}
	other.Start()
	t.Cleanup(func() { other.Close() })
	client := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	calls := &callLog{Client: client}
	r := newReplicaOver(t, client, calls, 1<<20)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := other.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	calls.take() // the load's
	return &registerPathRig{srv: srv, calls: calls, r: r, other: other}
}

// set writes a skill row as the other worker, straight through state::set.
func (g *registerPathRig) set(t *testing.T, id, body string) {
	t.Helper()
	row := catalog.SkillRow{ID: id, Skill: body, RegisteredAt: "2026-11-26T00:00:00.000000000+00:00"}
	if _, err := g.other.Call(context.Background(), "state::set", map[string]any{"scope": "skills", "key": id, "value": row}); err != nil {
		t.Fatal(err)
	}
}

// settle waits until the worker has dealt with every state event sent
// before now: the other worker writes a fresh marker row, and the
// worker's catalog handles events, and the reads they queue, in order,
// so once the marker is in the mirror every earlier event is handled.
func (g *registerPathRig) settle(t *testing.T) {
	t.Helper()
	g.marker++
	id := fmt.Sprintf("marker/m%d", g.marker)
	g.set(t, id, "marker")
	waitScope(t, g.r.skills, id, func() bool { _, found, _ := g.r.skills.Get(id); return found })
}

// mirrored is the body the worker's catalog holds for id, with the
// engine's, which it must equal.
func (g *registerPathRig) mirrored(t *testing.T, id string) (mirror, engine string) {
	t.Helper()
	e, found, auth := g.r.skills.Get(id)
	if !found || !auth || !e.HasBody {
		t.Fatalf("the catalog does not vouch for %s (found %v, authoritative %v, body %v)", id, found, auth, e.HasBody)
	}
	raw, ok := g.srv.State("skills", id)
	if !ok {
		t.Fatalf("the engine has no %s", id)
	}
	row, err := catalog.DecodeSkillRow(raw)
	if err != nil {
		t.Fatal(err)
	}
	return e.Body, row.Skill
}

// skills::register makes one engine call, state::set, and nothing else:
// the catalog takes the row it wrote, recognises the state event of its
// own write, and reads nothing back (docs/decisions.md D51). New ids and
// ids registered again (whose answer also echoes the old row) alike.
func TestRegisterIsOneStateSet(t *testing.T) {
	g := newRegisterPathRig(t)
	ctx := context.Background()
	var want []string
	for round := range 2 {
		for i := range 5 {
			id := fmt.Sprintf("team/skill-%d", i)
			body := fmt.Sprintf("# Skill %d\n\nRound %d <of two> & \"quoted\".", i, round)
			if _, err := g.r.reg.registerSkill(ctx, registerSkillInput{ID: id, Skill: body}); err != nil {
				t.Fatal(err)
			}
			want = append(want, "state::set "+id)
			if got, err := g.r.reg.skillBody(ctx, id); err != nil || got != body {
				t.Fatalf("the writer reads %s = %q, %v right after registering it; want %q", id, got, err, body)
			}
		}
	}
	g.settle(t)
	want = append(want, "state::get marker/m1") // the other worker's write is read, as always
	if diff := cmp.Diff(want, g.calls.take()); diff != "" {
		t.Errorf("engine calls of 10 registrations (-want +got):\n%s", diff)
	}
	for i := range 5 {
		id := fmt.Sprintf("team/skill-%d", i)
		if mirror, engine := g.mirrored(t, id); mirror != engine {
			t.Errorf("%s: the catalog holds %q, the engine %q", id, mirror, engine)
		}
	}
}

// eventHold is a state binding that sorts before the catalog's, so the
// engine, which delivers a state event to one binding after the other,
// holds every event of the scope until the test releases it: the test
// decides when the worker sees an event.
type eventHold struct {
	held    chan string   // the key of each event as it is held
	release chan struct{} // one send lets one event go on
}

func newEventHold() (*eventHold, iii.Function) {
	h := &eventHold{held: make(chan string), release: make(chan struct{})}
	f := iii.Function{ID: "test::hold-state-events", Handler: func(ctx context.Context, req iii.Request) (any, error) {
		var ev struct{ Key string }
		if err := json.Unmarshal(req.Data, &ev); err != nil {
			return nil, err
		}
		select {
		case h.held <- ev.Key:
		case <-ctx.Done():
			return nil, nil
		}
		select {
		case <-h.release:
		case <-ctx.Done():
		}
		return nil, nil
	}}
	return h, f
}

// next waits for the next event to be held and checks its key.
func (h *eventHold) next(t *testing.T, key string) {
	t.Helper()
	select {
	case got := <-h.held:
		if got != key {
			t.Fatalf("held the event of %s, want %s", got, key)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no state event of %s within 10 s", key)
	}
}

// Another client's write to the key the worker has just registered wins
// when it is the engine's last write, and loses when it is not, however
// its event and the worker's own interleave: the catalog ends with the
// engine's value. The other client's event arrives while the worker
// still waits for the event of its own write (ours, then theirs), or
// before it (theirs, then ours: their event must not put their older row
// over ours).
func TestAConcurrentWriteEndsAsTheEngineHasIt(t *testing.T) {
	for _, order := range []string{"ours then theirs", "theirs then ours"} {
		t.Run(order, func(t *testing.T) {
			hold, f := newEventHold()
			g := newRegisterPathRig(t, f)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			g.other.RegisterTrigger(iii.Trigger{ID: "0-hold", Type: catalog.StateTriggerType, FunctionID: f.ID,
				Config: map[string]string{"scope": "skills"}})
			if err := g.srv.WaitBinding(ctx, "0-hold"); err != nil {
				t.Fatal(err)
			}
			ours := func() {
				if _, err := g.r.reg.registerSkill(ctx, registerSkillInput{ID: "shared/guide", Skill: "# Ours"}); err != nil {
					t.Fatal(err)
				}
				if got, err := g.r.reg.skillBody(ctx, "shared/guide"); err != nil || got != "# Ours" {
					t.Fatalf("the writer reads %q, %v right after its own write", got, err)
				}
			}
			theirs := func() { g.set(t, "shared/guide", "# Theirs") }
			first, second, want := ours, theirs, "# Theirs"
			if order == "theirs then ours" {
				first, second, want = theirs, ours, "# Ours"
			}
			first()
			hold.next(t, "shared/guide") // the first write's event waits here
			second()
			hold.release <- struct{}{}
			hold.next(t, "shared/guide")
			hold.release <- struct{}{}
			go func() { // the marker's event
				for range hold.held {
					hold.release <- struct{}{}
				}
			}()
			g.settle(t)
			close(hold.held)
			mirror, engine := g.mirrored(t, "shared/guide")
			if engine != want || mirror != want {
				t.Errorf("the engine holds %q and the catalog %q; want both %q", engine, mirror, want)
			}
		})
	}
}
