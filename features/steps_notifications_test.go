package features

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/iii-hq/skills-go/internal/iii"
)

// The trigger types the worker provides.
var changeTypes = []string{"skills::on-change", "prompts::on-change"}

// settle is how long a notification count must stay put to count as final.
const settle = 200 * time.Millisecond

// recorder is the scenario's subscriber to both on-change types: one
// function per type on the harness client, bound with RegisterTrigger,
// unbound at scenario end.
type recorder struct {
	mu       sync.Mutex
	events   map[string][]json.RawMessage // by trigger type
	changed  chan struct{}                // signalled on every event
	bindings []string
	fns      []string
}

// subscribe binds a fresh recorder to both on-change types and waits until
// the worker knows both bindings.
func subscribe(r *run, uid string) (*recorder, error) {
	rec := &recorder{events: map[string][]json.RawMessage{}, changed: make(chan struct{}, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	bindings := map[string]string{}
	for _, typ := range changeTypes {
		kind := strings.TrimSuffix(typ, "::on-change")
		fn := fmt.Sprintf("bdd::recorder::%s-%s", kind, uid)
		binding := fmt.Sprintf("bdd-%s-%s", kind, uid)
		r.client.RegisterFunction(iii.Function{ID: fn, Description: "bdd recorder of " + typ,
			Handler: func(_ context.Context, req iii.Request) (any, error) {
				rec.add(typ, req.Data)
				return nil, nil
			}})
		r.client.RegisterTrigger(iii.Trigger{ID: binding, Type: typ, FunctionID: fn})
		rec.fns = append(rec.fns, fn)
		rec.bindings = append(rec.bindings, binding)
		bindings[binding] = typ
	}
	return rec, r.waitBindings(ctx, bindings)
}

func (rec *recorder) add(typ string, data json.RawMessage) {
	rec.mu.Lock()
	rec.events[typ] = append(rec.events[typ], data)
	rec.mu.Unlock()
	select {
	case rec.changed <- struct{}{}:
	default:
	}
}

func (rec *recorder) snapshot(typ string) []json.RawMessage {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]json.RawMessage(nil), rec.events[typ]...)
}

// close unbinds the recorder; nil does nothing.
func (rec *recorder) close(r *run) {
	if rec == nil {
		return
	}
	for _, b := range rec.bindings {
		r.client.UnregisterTrigger(b)
	}
	for _, fn := range rec.fns {
		r.client.UnregisterFunction(fn)
	}
}

// await waits until typ has had exactly want events: at least want within
// the timeout, and no more once the count has settled.
func (rec *recorder) await(typ string, want int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for len(rec.snapshot(typ)) < want {
		select {
		case <-rec.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			return fmt.Errorf("%s: %d events within %s, want %d: %s", typ, len(rec.snapshot(typ)), timeout, want, rec.snapshot(typ))
		}
	}
	time.Sleep(settle)
	if got := rec.snapshot(typ); len(got) != want {
		return fmt.Errorf("%s: %d events, want exactly %d: %s", typ, len(got), want, got)
	}
	return nil
}

func (w *world) notificationSteps(sc *godog.ScenarioContext) {
	sc.Step(`^(\d+) "([^"]*)" events? arrives? within (\d+) ms$`, w.eventsArrive)
	sc.Step(`^no "([^"]*)" event arrives within (\d+) ms$`, func(typ string, ms int) error {
		if err := w.needRecorder(); err != nil {
			return err
		}
		time.Sleep(time.Duration(ms) * time.Millisecond)
		if got := w.rec.snapshot(typ); len(got) != 0 {
			return fmt.Errorf("%s: want no events, got %s", typ, got)
		}
		return nil
	})
	sc.Step(`^the "([^"]*)" events are:$`, func(typ string, doc *godog.DocString) error {
		if err := w.needRecorder(); err != nil {
			return err
		}
		var want []any
		if err := json.Unmarshal([]byte(w.expand(doc.Content)), &want); err != nil {
			return fmt.Errorf("expected events must be a JSON array: %w", err)
		}
		if err := w.rec.await(typ, len(want), 5*time.Second); err != nil {
			return err
		}
		got := w.rec.snapshot(typ)
		for i := range want {
			if err := contains(want[i], decode(got[i])); err != nil {
				return fmt.Errorf("event %d %s: %w", i, got[i], err)
			}
		}
		return nil
	})
}

func (w *world) eventsArrive(n int, typ string, ms int) error {
	if err := w.needRecorder(); err != nil {
		return err
	}
	return w.rec.await(typ, n, time.Duration(ms)*time.Millisecond)
}

func (w *world) needRecorder() error {
	if w.rec == nil {
		return fmt.Errorf("no worker was started in this scenario, so nothing subscribed to its notifications")
	}
	return nil
}

// decode parses JSON with numbers kept as json.Number; invalid JSON
// decodes as its text.
func decode(raw json.RawMessage) any {
	v, err := parseJSON(raw)
	if err != nil {
		return strconv.Quote(string(raw))
	}
	return v
}
