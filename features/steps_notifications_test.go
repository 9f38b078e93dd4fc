package features

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/cucumber/godog"
)

// The trigger types the worker provides.
var changeTypes = []string{"skills::on-change", "prompts::on-change"}

// markerTimeout bounds the wait for a marker change's notification.
const markerTimeout = 5 * time.Second

// await waits until typ has had exactly want events: at least want within
// the timeout, and no more by the time a marker change made afterwards has
// been notified.
func (w *world) await(typ string, want int, timeout time.Duration) error {
	rec := w.rec
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		rec.mu.Lock()
		changed := rec.changed
		rec.mu.Unlock()
		if len(rec.snapshot(typ)) >= want {
			break
		}
		select {
		case <-changed:
		case <-rec.done:
			return fmt.Errorf("%s: the recorder's connection ended with %d events, want %d", typ, len(rec.snapshot(typ)), want)
		case <-deadline.C:
			return fmt.Errorf("%s: %d events within %s, want %d: %s", typ, len(rec.snapshot(typ)), timeout, want, rec.snapshot(typ))
		}
	}
	if err := w.marker(typ); err != nil {
		return err
	}
	if got := rec.snapshot(typ); len(got) != want {
		return fmt.Errorf("%s: %d events before the marker change, want exactly %d: %s", typ, len(got), want, got)
	}
	return nil
}

// marker makes a marker change of typ's kind (a skill or prompt
// bdd-marker-<n>, registered and unregistered at once, in the worker's
// namespace, so the scenario's state is as before) and waits for the
// notification of its unregister. Every notification of an earlier change
// has arrived by then.
func (w *world) marker(typ string) error {
	w.markers++
	name := fmt.Sprintf("%s%d", markerPrefix, w.markers)
	var calls [2]struct {
		fn      string
		payload map[string]any
	}
	key := "id"
	switch typ {
	case "skills::on-change":
		calls[0].fn, calls[0].payload = "skills::register", map[string]any{"id": name, "skill": "# Marker"}
		calls[1].fn, calls[1].payload = "skills::unregister", map[string]any{"id": name}
	case "prompts::on-change":
		key = "name"
		calls[0].fn, calls[0].payload = "prompts::register", map[string]any{"name": name, "description": "marker", "function_id": "bdd::prompt-string"}
		calls[1].fn, calls[1].payload = "prompts::unregister", map[string]any{"name": name}
	default:
		return fmt.Errorf("no marker change for %s", typ)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	for _, c := range calls {
		if _, err := w.engineCallIn(ctx, w.ns, c.fn, c.payload); err != nil {
			return fmt.Errorf("marker change %s %s: %w", c.fn, name, err)
		}
	}
	return w.rec.waitFor(typ, "notification of the marker change "+name, markerTimeout, func(e json.RawMessage) bool {
		var v map[string]any
		return json.Unmarshal(e, &v) == nil && v["op"] == "unregister" && v[key] == name
	})
}

func (w *world) notificationSteps(sc *godog.ScenarioContext) {
	sc.Step(`^(\d+) "([^"]*)" events? arrives? within (\d+) ms$`, w.eventsArrive)
	sc.Step(`^no "([^"]*)" event arrives before a marker change$`, func(typ string) error {
		if err := w.needRecorder(); err != nil {
			return err
		}
		if err := w.marker(typ); err != nil {
			return err
		}
		if got := w.rec.snapshot(typ); len(got) != 0 {
			return fmt.Errorf("%s: want no events before the marker change, got %s", typ, got)
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
		if err := w.await(typ, len(want), 5*time.Second); err != nil {
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
	return w.await(typ, n, time.Duration(ms)*time.Millisecond)
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
