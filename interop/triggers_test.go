package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// uuidRE matches the ids the Node SDK generates for its triggers.
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// A Go trigger-type provider receives a Node subscription made before it
// registered (parked by the engine, then replayed) and one made after;
// Fire reaches both Node functions with the payload, the provider's worker
// id and the binding's metadata; a Node unregister reaches the provider.
func TestGoProviderNodeSubscribers(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	const typeID = "go::on-change"

	node := startPeer(t, srv, "node-subscriber", peerOptions{})
	node.registerFunction("node::early", "record", nil)
	node.registerFunction("node::late", "record", nil)
	early := node.do("register_trigger", "trigger_registered", map[string]any{"type": typeID,
		"function_id": "node::early", "config": map[string]any{"scope": "early"}, "metadata": map[string]any{"sub": "early"}}).Ref
	node.waitConnected(srv)
	waitFunctions(t, srv, "node::early", "node::late")
	earlyBinding := waitBindingFor(t, srv, "node::early")
	if !earlyBinding.Parked {
		t.Fatalf("a binding of a type nobody provides is %+v, want parked", earlyBinding)
	}

	gw := newGoWorker(t, srv, "go-provider")
	gw.register("go::barrier", gw.echo())
	var hooks hookLog
	provider := gw.c.ProvideTriggerType(iii.TriggerType{
		ID:           typeID,
		Description:  "changes seen by the Go side",
		OnRegister:   func(_ context.Context, s iii.Subscription) error { hooks.add("register", s); return nil },
		OnUnregister: func(_ context.Context, s iii.Subscription) { hooks.add("unregister", s) },
	})
	gw.start(srv, "go::barrier")
	subs := waitSubscribers(t, srv, gw, "go::barrier", provider, typeID, 1)
	want := iii.Subscription{ID: earlyBinding.ID, TriggerType: typeID, FunctionID: "node::early",
		Config: json.RawMessage(`{"scope":"early"}`), Metadata: json.RawMessage(`{"sub":"early"}`)}
	if diff := cmp.Diff([]iii.Subscription{want}, subs, jsonRawComparer); diff != "" {
		t.Errorf("replayed subscription (-want +got):\n%s", diff)
	}
	if !uuidRE.MatchString(earlyBinding.ID) {
		t.Errorf("Node trigger id %q is not a UUIDv4", earlyBinding.ID)
	}

	node.do("register_trigger", "trigger_registered", map[string]any{"type": typeID,
		"function_id": "node::late", "config": map[string]any{"scope": "late"}})
	subs = waitSubscribers(t, srv, gw, "go::barrier", provider, typeID, 2)
	late := subs[slices.IndexFunc(subs, func(s iii.Subscription) bool { return s.FunctionID == "node::late" })]
	jsonEqual(t, "late subscription config", late.Config, map[string]any{"scope": "late"})
	if late.Metadata != nil {
		t.Errorf("late subscription metadata %s, want none", late.Metadata)
	}

	payload := map[string]any{"op": "register", "id": "pdf", "tags": []string{"a", "b"}}
	if n := provider.Fire(context.Background(), payload); n != 2 {
		t.Fatalf("Fire sent %d invokes, want 2", n)
	}
	goID := gw.c.WorkerID()
	for _, tc := range []struct {
		fn   string
		meta any
	}{{"node::early", map[string]any{"sub": "early"}}, {"node::late", nil}} {
		inv := node.awaitInvoked(tc.fn)
		data, caller := splitCaller(t, inv.Data)
		jsonEqual(t, tc.fn+" payload", data, payload)
		if caller != goID {
			t.Errorf("%s: %s = %q, want the provider's worker id %q", tc.fn, callerKey, caller, goID)
		}
		if tc.meta == nil {
			if inv.HasMetadata {
				t.Errorf("%s got metadata %s, want none", tc.fn, inv.Metadata)
			}
			continue
		}
		jsonEqual(t, tc.fn+" metadata", inv.Metadata, tc.meta)
	}

	// The provider answered each binding with success, which the engine
	// swallows: the Node subscriber hears nothing about its triggers.
	frames, _ := node.frames()
	for _, f := range frames {
		if f.Dir == "in" && f.Type == "triggerregistrationresult" {
			t.Errorf("Node received a triggerregistrationresult for %s: %s", f.ID, f.Error)
		}
	}

	node.do("unregister_trigger", "trigger_unregistered", map[string]any{"trigger_ref": early})
	waitSubscribers(t, srv, gw, "go::barrier", provider, typeID, 1)
	waitUntil(t, waitTimeout, "OnUnregister called", func() error {
		if got := hooks.ids("unregister"); !slices.Equal(got, []string{earlyBinding.ID}) {
			return fmt.Errorf("OnUnregister saw %v, want [%s]", got, earlyBinding.ID)
		}
		return nil
	})
	if got := hooks.ids("register"); len(got) != 2 {
		t.Errorf("OnRegister saw %v, want the two bindings once each", got)
	}
}

// A Node trigger-type provider receives a Go subscription made before it
// registered (parked, replayed) and one made after, and fires into the Go
// function by calling the subscriber's function id; a Go unregister
// reaches the Node provider.
func TestNodeProviderGoSubscriber(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	const typeID = "node::on-event"

	gw := newGoWorker(t, srv, "go-subscriber")
	gw.register("go::on-event", gw.record(nil, nil))
	gw.c.RegisterTrigger(iii.Trigger{ID: "go-sub-early", Type: typeID, FunctionID: "go::on-event",
		Config: map[string]any{"filter": "early"}, Metadata: map[string]any{"sub": "early"}})
	gw.start(srv, "go::on-event")
	waitParked(t, srv, "go-sub-early")

	node := startPeer(t, srv, "node-provider", peerOptions{})
	node.do("provide_trigger_type", "trigger_type_registered", map[string]any{"id": typeID, "description": "events from Node"})
	var early nodeTriggerConfig
	node.awaitEvent("provider_register", "").decode(t, &early)
	wantEarly := nodeTriggerConfig{TriggerType: typeID, ID: "go-sub-early", FunctionID: ptr("go::on-event"),
		Config: json.RawMessage(`{"filter":"early"}`), HasMetadata: true, Metadata: json.RawMessage(`{"sub":"early"}`)}
	if diff := cmp.Diff(wantEarly, early, jsonRawComparer); diff != "" {
		t.Errorf("Node provider saw the replayed binding as (-want +got):\n%s", diff)
	}

	gw.c.RegisterTrigger(iii.Trigger{ID: "go-sub-late", Type: typeID, FunctionID: "go::on-event"})
	var late nodeTriggerConfig
	node.awaitEvent("provider_register", "").decode(t, &late)
	wantLate := nodeTriggerConfig{TriggerType: typeID, ID: "go-sub-late", FunctionID: ptr("go::on-event"),
		Config: json.RawMessage(`{}`)}
	if diff := cmp.Diff(wantLate, late, jsonRawComparer); diff != "" {
		t.Errorf("Node provider saw the late binding as (-want +got):\n%s", diff)
	}
	node.waitConnected(srv)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, id := range []string{"go-sub-early", "go-sub-late"} {
		if err := srv.WaitBinding(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	var fired struct {
		Count int `json:"count"`
	}
	payload := map[string]any{"kind": "created", "n": 7}
	node.do("fire", "fired", map[string]any{"trigger_type": typeID, "payload": payload}).decode(t, &fired)
	if fired.Count != 2 {
		t.Fatalf("Node provider fired %d subscribers, want 2", fired.Count)
	}
	nodeID := node.workerID(srv)
	got := []iii.Request{gw.awaitCall("go::on-event", 0), gw.awaitCall("go::on-event", 1)}
	var metas []string
	for _, req := range got {
		data, caller := splitCaller(t, req.Data)
		jsonEqual(t, "fired payload", data, payload)
		if caller != nodeID {
			t.Errorf("%s = %q, want the Node provider's worker id %q", callerKey, caller, nodeID)
		}
		metas = append(metas, string(req.Metadata))
	}
	slices.Sort(metas)
	if want := []string{"", `{"sub":"early"}`}; !slices.Equal(metas, want) {
		t.Errorf("metadata the Go function saw: %q, want %q", metas, want)
	}

	gw.c.UnregisterTrigger("go-sub-late")
	var gone nodeTriggerConfig
	node.awaitEvent("provider_unregister", "").decode(t, &gone)
	// The engine's unregistertrigger carries no function_id; the SDK
	// fills in "" (docs/protocol.md#node-sdk-observations).
	wantGone := nodeTriggerConfig{TriggerType: typeID, ID: "go-sub-late", FunctionID: ptr("")}
	if diff := cmp.Diff(wantGone, gone, jsonRawComparer); diff != "" {
		t.Errorf("Node provider's unregister saw (-want +got):\n%s", diff)
	}
}

// waitBindingFor waits until the engine holds exactly one binding (live
// or parked) to functionID, and returns it.
func waitBindingFor(t *testing.T, srv *engine.Engine, functionID string) engine.Binding {
	t.Helper()
	var found []engine.Binding
	waitUntil(t, waitTimeout, "a binding to "+functionID, func() error {
		found = found[:0]
		for _, b := range srv.Bindings() {
			if b.FunctionID == functionID {
				found = append(found, b)
			}
		}
		if len(found) != 1 {
			return fmt.Errorf("engine has %d bindings to %s, want 1: %+v", len(found), functionID, found)
		}
		return nil
	})
	return found[0]
}

// waitParked waits until the engine holds trigger id as parked.
func waitParked(t *testing.T, srv *engine.Engine, id string) {
	t.Helper()
	waitUntil(t, waitTimeout, "trigger "+id+" parked", func() error {
		for _, b := range srv.Bindings() {
			if b.ID == id && b.Parked {
				return nil
			}
		}
		return fmt.Errorf("bindings: %+v", srv.Bindings())
	})
}

// waitSubscribers waits until the engine holds n live bindings of typeID
// and returns the subscribers of p, gw's provider of that type, which must
// then be n. The engine has sent those bindings (and removals) to gw
// before it forwards gw's call of barrier, a function of gw's own; gw
// handles its frames in order, so once that call is answered p is up to
// date.
func waitSubscribers(t *testing.T, srv *engine.Engine, gw *goWorker, barrier string, p *iii.Provider, typeID string, n int) []iii.Subscription {
	t.Helper()
	waitUntil(t, waitTimeout, fmt.Sprintf("%d live bindings of %s", n, typeID), func() error {
		var live []engine.Binding
		for _, b := range srv.Bindings() {
			if b.TriggerType == typeID && !b.Parked {
				live = append(live, b)
			}
		}
		if len(live) != n {
			return fmt.Errorf("%d live bindings, want %d: %+v", len(live), n, live)
		}
		return nil
	})
	if _, err := gw.call(barrier, map[string]any{"barrier": true}); err != nil {
		t.Fatalf("barrier call of %s: %v", barrier, err)
	}
	subs := p.Subscribers()
	if len(subs) != n {
		t.Fatalf("%d subscribers, want %d: %+v", len(subs), n, subs)
	}
	return subs
}

// hookLog records a provider's OnRegister/OnUnregister calls.
type hookLog struct {
	mu    sync.Mutex
	calls []hookCall
}

type hookCall struct {
	kind string
	sub  iii.Subscription
}

func (h *hookLog) add(kind string, s iii.Subscription) {
	defer bump()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, hookCall{kind, s})
}

// ids lists the trigger ids of one kind of call, in order.
func (h *hookLog) ids(kind string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, c := range h.calls {
		if c.kind == kind {
			out = append(out, c.sub.ID)
		}
	}
	return out
}

// jsonRawComparer compares json.RawMessage by JSON value.
var jsonRawComparer = cmp.Comparer(func(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(x, y)
})

func ptr[T any](v T) *T { return &v }
