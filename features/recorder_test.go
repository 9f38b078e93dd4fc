package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// recorder is the scenario's subscriber to both on-change types: a
// connection of its own to the engine serving one function per type, each
// bound to its type, all removed at scenario end.
//
// It reads its socket on one goroutine and records every invocation as it
// is read, so events are kept in the order the engine forwarded them. The
// worker sends a change's notification before the answer to the call that
// made the change, and the engine forwards a connection's frames in order,
// so the notification of a marker change (marker) arrives after every
// notification of the changes before it: that is what makes "exactly N"
// and "no event" provable without waiting for time to pass.
type recorder struct {
	ws   *websocket.Conn
	ns   string     // the worker's namespace ("": the default one)
	wmu  sync.Mutex // one writer at a time on ws
	done chan struct{}

	fns      map[string]string // recorder function id → trigger type
	bindings map[string]string // binding id → trigger type

	mu      sync.Mutex
	events  map[string][]json.RawMessage // by trigger type, markers included, in arrival order
	pending map[string]chan wire.InvocationResult
	changed chan struct{} // closed and replaced on every event
	readErr error
}

// subscribe connects a fresh recorder, binds it to both on-change types
// of the worker in namespace ns ("": the default one) and waits until the
// worker knows both bindings.
//
// On an engine with namespaces (link.namespaces) the recorder first makes
// the engine::workers::register call, without a namespace, so that its
// registrations apply at once in the default namespace rather than after
// the engine's grace; its bindings then name the worker's namespace as
// trigger_namespace (where the provider is) and none as namespace (where
// the recorder's functions are). On any other engine it sends exactly
// what it always did.
func subscribe(l *link, uid, ns string) (*recorder, error) {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, l.url, nil)
	if err != nil {
		return nil, fmt.Errorf("recorder: connect to %s: %w", l.url, err)
	}
	rec := &recorder{ws: ws, ns: ns, done: make(chan struct{}),
		fns: map[string]string{}, bindings: map[string]string{},
		events: map[string][]json.RawMessage{}, pending: map[string]chan wire.InvocationResult{},
		changed: make(chan struct{})}
	go rec.read()
	var frames []wire.Message
	if l.namespaces {
		frames = append(frames, wire.InvokeFunction{InvocationID: uuid.NewString(), FunctionID: "engine::workers::register", Data: json.RawMessage(`{}`)})
	}
	for _, typ := range changeTypes {
		kind := strings.TrimSuffix(typ, "::on-change")
		fn := fmt.Sprintf("bdd::recorder::%s-%s", kind, uid)
		binding := fmt.Sprintf("bdd-%s-%s", kind, uid)
		rec.fns[fn], rec.bindings[binding] = typ, typ
		frames = append(frames,
			wire.RegisterFunction{ID: fn, Description: "bdd recorder of " + typ},
			wire.RegisterTrigger{ID: binding, TriggerType: typ, FunctionID: fn, Config: json.RawMessage(`{}`), TriggerNamespace: ns})
	}
	for _, f := range frames {
		if err := rec.send(f); err != nil {
			rec.close()
			return nil, err
		}
	}
	if err := l.waitBindings(ctx, ns, rec.bindings, rec.barrierCall); err != nil {
		rec.close()
		return nil, err
	}
	return rec, nil
}

// send writes one frame.
func (rec *recorder) send(m wire.Message) error {
	b, err := wire.Encode(m)
	if err != nil {
		return err
	}
	rec.wmu.Lock()
	defer rec.wmu.Unlock()
	_ = rec.ws.SetWriteDeadline(time.Now().Add(callTimeout))
	if err := rec.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		return fmt.Errorf("recorder: send %s: %w", m.MessageType(), err)
	}
	return nil
}

// read records invocations of the recorder functions, answers every
// invocation that carries an id, and resolves the recorder's own calls,
// until the socket ends.
func (rec *recorder) read() {
	defer close(rec.done)
	for {
		_, b, err := rec.ws.ReadMessage()
		if err != nil {
			rec.mu.Lock()
			rec.readErr = err
			rec.mu.Unlock()
			return
		}
		m, err := wire.Decode(b)
		if err != nil {
			continue
		}
		switch m := m.(type) {
		case wire.InvokeFunction:
			if typ, ok := rec.fns[m.FunctionID]; ok {
				rec.add(typ, m.Data)
			}
			if m.InvocationID != "" && m.Action == nil {
				_ = rec.send(wire.InvocationResult{InvocationID: m.InvocationID, FunctionID: m.FunctionID})
			}
		case wire.InvocationResult:
			rec.mu.Lock()
			ch := rec.pending[m.InvocationID]
			delete(rec.pending, m.InvocationID)
			rec.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case wire.Ping:
			_ = rec.send(wire.Pong{})
		}
	}
}

func (rec *recorder) add(typ string, data json.RawMessage) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.events[typ] = append(rec.events[typ], data)
	close(rec.changed)
	rec.changed = make(chan struct{})
}

// barrierCall calls skills::resources-templates (in the worker's
// namespace) from the recorder's own connection. The engine forwards the
// recorder's bindings to the worker before any later call from the same
// connection, and the worker handles its frames in order, so once this
// answers the worker holds the bindings.
func (rec *recorder) barrierCall(ctx context.Context) error {
	id := uuid.NewString()
	ch := make(chan wire.InvocationResult, 1)
	rec.mu.Lock()
	rec.pending[id] = ch
	rec.mu.Unlock()
	defer func() {
		rec.mu.Lock()
		delete(rec.pending, id)
		rec.mu.Unlock()
	}()
	if err := rec.send(wire.InvokeFunction{InvocationID: id, FunctionID: "skills::resources-templates", Data: json.RawMessage(`{}`), Namespace: rec.ns}); err != nil {
		return err
	}
	select {
	case res := <-ch:
		if res.Error != nil {
			return fmt.Errorf("recorder: skills::resources-templates: %s: %s", res.Error.Code, res.Error.Message)
		}
		return nil
	case <-rec.done:
		return errors.New("recorder: connection ended before skills::resources-templates answered")
	case <-ctx.Done():
		return fmt.Errorf("recorder: skills::resources-templates: %w", ctx.Err())
	}
}

// snapshot returns typ's events without the markers.
func (rec *recorder) snapshot(typ string) []json.RawMessage {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []json.RawMessage
	for _, e := range rec.events[typ] {
		if !isMarker(e) {
			out = append(out, e)
		}
	}
	return out
}

// waitFor waits until one of typ's events (markers included) satisfies
// match.
func (rec *recorder) waitFor(typ, what string, timeout time.Duration, match func(json.RawMessage) bool) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		rec.mu.Lock()
		found := false
		for _, e := range rec.events[typ] {
			if match(e) {
				found = true
				break
			}
		}
		changed, readErr := rec.changed, rec.readErr
		rec.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-changed:
		case <-rec.done:
			return fmt.Errorf("%s: the recorder's connection ended (%v) before %s", typ, readErr, what)
		case <-deadline.C:
			return fmt.Errorf("%s: no %s within %s", typ, what, timeout)
		}
	}
}

// close unbinds the recorder, closes its connection and waits for its
// reader; nil does nothing.
func (rec *recorder) close() {
	if rec == nil {
		return
	}
	for b, typ := range rec.bindings {
		_ = rec.send(wire.UnregisterTrigger{ID: b, TriggerType: typ})
	}
	for fn := range rec.fns {
		_ = rec.send(wire.UnregisterFunction{ID: fn})
	}
	rec.wmu.Lock()
	_ = rec.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		time.Now().Add(time.Second))
	rec.wmu.Unlock()
	_ = rec.ws.Close()
	<-rec.done
}

// markerPrefix starts the id (or name) of every marker change.
const markerPrefix = "bdd-marker-"

// isMarker reports whether an event is the notification of a marker change.
func isMarker(e json.RawMessage) bool {
	var v struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	return json.Unmarshal(e, &v) == nil && (strings.HasPrefix(v.ID, markerPrefix) || strings.HasPrefix(v.Name, markerPrefix))
}
