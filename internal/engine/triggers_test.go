package engine

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

const changeType = "skills::on-change"

// subscription is the binding most tests register.
var subscription = wire.RegisterTrigger{ID: "mcp-skills-watch", TriggerType: changeType,
	FunctionID: "mcp::__on_skills_changed", Config: []byte(`{"b":1,"a":2}`), Metadata: []byte(`{"m":true}`)}

// forwarded is subscription as the engine sends it to a provider.
var forwarded = wire.RegisterTrigger{ID: "mcp-skills-watch", TriggerType: changeType,
	FunctionID: "mcp::__on_skills_changed", Config: []byte(`{"a":2,"b":1}`), Metadata: []byte(`{"m":true}`)}

func provide(p *peer, typeID string) {
	p.t.Helper()
	p.send(wire.RegisterTriggerType{ID: typeID, Description: "changes"})
	p.barrier()
}

func bindingState(t *testing.T, s *Engine, id string) (live, parked bool) {
	t.Helper()
	for _, b := range s.Bindings() {
		if b.ID == id {
			live, parked = live || !b.Parked, parked || b.Parked
		}
	}
	return live, parked
}

func TestUnknownTypeIsParkedThenReplayedToItsProvider(t *testing.T) {
	s := newTestServer(t)
	sub := dial(t, s)
	sub.send(subscription)
	sub.barrier() // parked silently: no reply
	if live, parked := bindingState(t, s, subscription.ID); live || !parked {
		t.Fatalf("binding live=%v parked=%v, want parked", live, parked)
	}
	prov := dial(t, s)
	prov.send(wire.RegisterTriggerType{ID: changeType, Description: ""})
	if diff := cmp.Diff(forwarded, expect[wire.RegisterTrigger](prov)); diff != "" {
		t.Errorf("replayed binding (-want +got):\n%s", diff)
	}
	if live, parked := bindingState(t, s, subscription.ID); !live || parked {
		t.Errorf("binding live=%v parked=%v after its type appeared, want live", live, parked)
	}
	prov.send(wire.TriggerRegistrationResult{ID: forwarded.ID, TriggerType: changeType, FunctionID: forwarded.FunctionID})
	prov.barrier()
	sub.barrier() // success is swallowed: no ack to anyone
}

func TestBindingToLiveProviderIsForwarded(t *testing.T) {
	s := newTestServer(t)
	prov, sub := dial(t, s), dial(t, s)
	provide(prov, changeType)
	sub.send(subscription)
	if diff := cmp.Diff(forwarded, expect[wire.RegisterTrigger](prov)); diff != "" {
		t.Errorf("forwarded binding (-want +got):\n%s", diff)
	}
	sub.barrier()
	// A provider's own bindings are forwarded back to it too.
	own := wire.RegisterTrigger{ID: "self", TriggerType: changeType, FunctionID: "skills::x", Config: []byte(`{}`)}
	prov.send(own)
	if diff := cmp.Diff(own, expect[wire.RegisterTrigger](prov)); diff != "" {
		t.Errorf("own binding (-want +got):\n%s", diff)
	}
}

func TestProviderRejectionParksAndReachesTheOriginator(t *testing.T) {
	s := newTestServer(t)
	prov, sub, stranger := dial(t, s), dial(t, s), dial(t, s)
	provide(prov, changeType)
	sub.send(subscription)
	expect[wire.RegisterTrigger](prov)
	reject := wire.TriggerRegistrationResult{ID: forwarded.ID, TriggerType: changeType, FunctionID: forwarded.FunctionID,
		Error: &wire.ErrorBody{Code: "trigger_registration_failed", Message: "bad config"}}

	stranger.send(reject) // only the provider may report
	stranger.barrier()
	if live, _ := bindingState(t, s, forwarded.ID); !live {
		t.Fatal("a non-provider's rejection was applied")
	}
	sub.barrier()

	prov.send(reject)
	if diff := cmp.Diff(reject, expect[wire.TriggerRegistrationResult](sub)); diff != "" {
		t.Errorf("originator got (-want +got):\n%s", diff)
	}
	if live, parked := bindingState(t, s, forwarded.ID); live || !parked {
		t.Errorf("rejected binding live=%v parked=%v, want parked", live, parked)
	}
	// The next provider registration retries it.
	provide2 := dial(t, s)
	provide2.send(wire.RegisterTriggerType{ID: changeType, Description: "again"})
	expect[wire.RegisterTrigger](provide2)
}

func TestSubscriberDisconnectTellsTheProvider(t *testing.T) {
	s := newTestServer(t)
	prov, sub := dial(t, s), dial(t, s)
	provide(prov, changeType)
	sub.send(subscription)
	expect[wire.RegisterTrigger](prov)
	sub.close()
	want := wire.UnregisterTrigger{ID: subscription.ID, TriggerType: changeType}
	if diff := cmp.Diff(want, expect[wire.UnregisterTrigger](prov)); diff != "" {
		t.Errorf("provider got (-want +got):\n%s", diff)
	}
	if got := s.Bindings(); len(got) != 0 {
		t.Errorf("bindings after subscriber disconnect: %+v", got)
	}
}

func TestProviderDisconnectParksBindingsUntilTheTypeReturns(t *testing.T) {
	s := newTestServer(t)
	prov, sub := dial(t, s), dial(t, s)
	provide(prov, changeType)
	sub.send(subscription)
	expect[wire.RegisterTrigger](prov)
	prov.send(wire.RegisterTrigger{ID: "provider-own", TriggerType: changeType, FunctionID: "skills::x", Config: []byte(`{}`)})
	expect[wire.RegisterTrigger](prov)

	disconnect(t, s, prov)
	sub.barrier() // subscribers are not told
	if live, parked := bindingState(t, s, subscription.ID); live || !parked {
		t.Fatalf("binding live=%v parked=%v after provider disconnect, want parked", live, parked)
	}
	if live, parked := bindingState(t, s, "provider-own"); live || parked {
		t.Errorf("the provider's own binding survived it")
	}
	for _, tt := range s.TriggerTypes() {
		if tt.ID == changeType {
			t.Errorf("trigger type survived its provider: %+v", tt)
		}
	}

	back := dial(t, s)
	back.send(wire.RegisterTriggerType{ID: changeType, Description: "changes"})
	if diff := cmp.Diff(forwarded, expect[wire.RegisterTrigger](back)); diff != "" {
		t.Errorf("replay to the returning provider (-want +got):\n%s", diff)
	}
	back.barrier() // exactly one binding replayed
}

func TestReRegisteringATypeReplacesTheProvider(t *testing.T) {
	s := newTestServer(t)
	oldProv, sub := dial(t, s), dial(t, s)
	provide(oldProv, changeType)
	sub.send(subscription)
	expect[wire.RegisterTrigger](oldProv)

	newProv := dial(t, s)
	newProv.send(wire.RegisterTriggerType{ID: changeType, Description: "mine now"})
	if diff := cmp.Diff(forwarded, expect[wire.RegisterTrigger](newProv)); diff != "" {
		t.Errorf("replay to the new provider (-want +got):\n%s", diff)
	}
	oldProv.barrier()         // the previous provider is not told
	disconnect(t, s, oldProv) // and its disconnect no longer affects the type
	if live, _ := bindingState(t, s, subscription.ID); !live {
		t.Error("binding parked by a former provider's disconnect")
	}
	// Even a built-in type can be taken over.
	newProv.send(wire.RegisterTriggerType{ID: "engine::workers-available", Description: "taken"})
	newProv.barrier()
	for _, tt := range s.TriggerTypes() {
		if tt.ID == "engine::workers-available" && tt.ProviderID != newProv.id {
			t.Errorf("built-in type not replaced: %+v", tt)
		}
	}
}

func TestTriggerIDsAreGlobalAndUnowned(t *testing.T) {
	s := newTestServer(t)
	prov, sub, other := dial(t, s), dial(t, s), dial(t, s)
	provide(prov, changeType)
	sub.send(subscription)
	expect[wire.RegisterTrigger](prov)

	// Same id from someone else replaces the binding and its owner.
	replacement := subscription
	replacement.FunctionID = "other::handler"
	replacement.Metadata = nil
	other.send(replacement)
	got := expect[wire.RegisterTrigger](prov)
	if got.FunctionID != "other::handler" {
		t.Fatalf("replacement forwarded as %+v", got)
	}
	disconnect(t, s, sub)
	prov.barrier() // the former owner's disconnect no longer concerns it

	// Anyone can unregister it, whatever trigger_type they name.
	sub2 := dial(t, s)
	sub2.send(wire.UnregisterTrigger{ID: subscription.ID, TriggerType: "wrong"})
	want := wire.UnregisterTrigger{ID: subscription.ID, TriggerType: changeType}
	if diff := cmp.Diff(want, expect[wire.UnregisterTrigger](prov)); diff != "" {
		t.Errorf("provider got (-want +got):\n%s", diff)
	}
	// Unregistering a parked binding removes it silently.
	sub2.send(wire.RegisterTrigger{ID: "parked", TriggerType: "nobody::provides", FunctionID: "f", Config: []byte(`{}`)})
	sub2.send(wire.UnregisterTrigger{ID: "parked"})
	sub2.barrier()
	prov.barrier()
	if got := s.Bindings(); len(got) != 0 {
		t.Errorf("bindings left: %+v", got)
	}
}

func TestFunctionsAvailableFiresWhenTheSetChanges(t *testing.T) {
	s := newTestServerWith(t, Options{FunctionsPollInterval: 20 * time.Millisecond})
	watcher := dial(t, s)
	// Bind first: the poll that sees the new function then has a target.
	watcher.send(wire.RegisterTrigger{ID: "fa", TriggerType: "engine::functions-available",
		FunctionID: "watch::functions", Config: []byte(`{}`)})
	watcher.barrier()
	watcher.send(wire.RegisterFunction{ID: "watch::functions"})
	inv := expect[wire.InvokeFunction](watcher)
	var payload struct {
		Event     string
		Functions []map[string]any
	}
	if err := json.Unmarshal(inv.Data, &payload); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range payload.Functions {
		found = found || f["function_id"] == "watch::functions"
	}
	if payload.Event != "functions_changed" || !found {
		t.Errorf("functions-available payload = %s", inv.Data)
	}
}

// The same trigger id registered again (by anyone) replaces the previous
// binding (docs/engine.md): when the new registration names a type nobody provides, the new
// binding is parked and the old live one must go (it once stayed, so the
// id existed twice and the old provider kept a stale subscriber).
func TestReRegisteringATriggerIDReplacesTheLiveBinding(t *testing.T) {
	s := newTestServer(t)
	prov, sub := dial(t, s), dial(t, s)
	provide(prov, changeType)
	sub.send(subscription)
	expect[wire.RegisterTrigger](prov)
	moved := subscription
	moved.TriggerType = "nobody::provides-this"
	sub.send(moved)
	sub.barrier()
	var got []Binding
	for _, b := range s.Bindings() {
		if b.ID == subscription.ID {
			got = append(got, b)
		}
	}
	if len(got) != 1 || !got[0].Parked || got[0].TriggerType != moved.TriggerType {
		t.Errorf("bindings with id %s after re-registration: %+v, want only the parked %s one",
			subscription.ID, got, moved.TriggerType)
	}
}
