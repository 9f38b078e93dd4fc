package iii

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// regResult matches the triggerregistrationresult for a trigger id.
func regResult(id string) func(received) bool {
	return func(r received) bool {
		m, ok := r.msg.(wire.TriggerRegistrationResult)
		return ok && m.ID == id
	}
}

func TestProvider(t *testing.T) {
	p := newPeer(t)
	c, logs := newClient(t, p, func(o *Options) { o.ReconnectInitial, o.ReconnectMax = time.Hour, time.Hour })
	var mu sync.Mutex
	var unregistered []string
	prov := c.ProvideTriggerType(TriggerType{
		ID:          "skills::on-change",
		Description: "Fires after any mutation",
		OnRegister: func(_ context.Context, s Subscription) error {
			if string(s.Config) == `{"reject":true}` {
				return errors.New("bad config")
			}
			return nil
		},
		OnUnregister: func(_ context.Context, s Subscription) {
			mu.Lock()
			defer mu.Unlock()
			unregistered = append(unregistered, s.ID+"->"+s.FunctionID)
		},
	})
	startReady(t, c)
	pc := p.waitConn(1)

	bind := func(id, typ, fn, config, meta string) wire.RegisterTrigger {
		m := wire.RegisterTrigger{ID: id, TriggerType: typ, FunctionID: fn, Config: json.RawMessage(config)}
		if meta != "" {
			m.Metadata = json.RawMessage(meta)
		}
		return m
	}
	replies := []struct {
		send wire.RegisterTrigger
		want wire.TriggerRegistrationResult
	}{
		{send: bind("s2", "skills::on-change", "b::fn", `{}`, ""),
			want: wire.TriggerRegistrationResult{ID: "s2", TriggerType: "skills::on-change", FunctionID: "b::fn"}},
		{send: bind("s1", "skills::on-change", "a::fn", `{}`, `{"m":1}`),
			want: wire.TriggerRegistrationResult{ID: "s1", TriggerType: "skills::on-change", FunctionID: "a::fn"}},
		{send: bind("s3", "skills::on-change", "c::fn", `{"reject":true}`, ""),
			want: wire.TriggerRegistrationResult{ID: "s3", TriggerType: "skills::on-change", FunctionID: "c::fn",
				Error: &wire.ErrorBody{Code: "trigger_registration_failed", Message: "bad config"}}},
		{send: bind("s4", "other::type", "d::fn", `{}`, ""),
			want: wire.TriggerRegistrationResult{ID: "s4", TriggerType: "other::type", FunctionID: "d::fn",
				Error: &wire.ErrorBody{Code: "trigger_type_not_found", Message: "Trigger type not found"}}},
		{send: bind("s1", "skills::on-change", "a2::fn", `{"k":2}`, `{"m":2}`), // upsert
			want: wire.TriggerRegistrationResult{ID: "s1", TriggerType: "skills::on-change", FunctionID: "a2::fn"}},
	}
	for _, r := range replies {
		pc.send(r.send)
	}
	roundTrip(t, p, pc)
	var got []wire.Message
	var want []wire.Message
	for _, r := range replies {
		want = append(want, r.want)
	}
	for _, m := range p.framesOn(1) {
		if m.MessageType() == wire.TypeTriggerRegistrationResult {
			got = append(got, m)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("triggerregistrationresult replies (-want +got):\n%s", diff)
	}
	subs := []Subscription{
		{ID: "s1", TriggerType: "skills::on-change", FunctionID: "a2::fn", Config: json.RawMessage(`{"k":2}`), Metadata: json.RawMessage(`{"m":2}`)},
		{ID: "s2", TriggerType: "skills::on-change", FunctionID: "b::fn", Config: json.RawMessage(`{}`)},
	}
	if diff := cmp.Diff(subs, prov.Subscribers()); diff != "" {
		t.Errorf("Subscribers() (-want +got):\n%s", diff)
	}

	if n := prov.Fire(context.Background(), map[string]string{"op": "register", "id": "pdf"}); n != 2 {
		t.Errorf("Fire sent %d invokes, want 2", n)
	}
	p.waitFrame("fan-out to b", func(r received) bool {
		m, ok := r.msg.(wire.InvokeFunction)
		return ok && m.FunctionID == "b::fn"
	})
	var fired []wire.Message
	for _, m := range p.framesOn(1) {
		if inv, ok := m.(wire.InvokeFunction); ok && inv.FunctionID != RegisterWorkerFunction {
			fired = append(fired, inv)
		}
	}
	void := &wire.Action{Type: wire.ActionVoid}
	wantFired := []wire.Message{
		wire.InvokeFunction{FunctionID: "a2::fn", Data: json.RawMessage(`{"id":"pdf","op":"register"}`), Metadata: json.RawMessage(`{"m":2}`), Action: void},
		wire.InvokeFunction{FunctionID: "b::fn", Data: json.RawMessage(`{"id":"pdf","op":"register"}`), Action: void},
	}
	if diff := cmp.Diff(wantFired, fired); diff != "" {
		t.Errorf("fan-out (-want +got):\n%s", diff)
	}

	pc.send(wire.UnregisterTrigger{ID: "s2", TriggerType: "skills::on-change"})
	pc.send(wire.UnregisterTrigger{ID: "s1"})                                   // no type: ignored
	pc.send(wire.UnregisterTrigger{ID: "s9", TriggerType: "skills::on-change"}) // unknown: no hook
	roundTrip(t, p, pc)
	if diff := cmp.Diff(subs[:1], prov.Subscribers()); diff != "" {
		t.Errorf("Subscribers() after unregister (-want +got):\n%s", diff)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{"s2->b::fn"}, unregistered); diff != "" {
		t.Errorf("OnUnregister calls (-want +got):\n%s", diff)
	}
	mu.Unlock()

	// Disconnected (the reconnect delay is an hour): the fan-out fails,
	// is logged and swallowed.
	p.dropAll()
	waitState(t, c, "disconnect", func() bool { return c.WorkerID() == "" })
	if n := prov.Fire(context.Background(), "x"); n != 0 {
		t.Errorf("Fire while disconnected sent %d", n)
	}
	entry := waitLog(t, logs, "on-change fan-out failed")
	if got := entry.ContextMap()["function_id"]; got != "a2::fn" {
		t.Errorf("fan-out failure logged function_id %v", got)
	}
}

// TestProviderResetOnReconnect checks that a new connection starts with an
// empty subscriber set, since the engine re-sends the bindings.
func TestProviderResetOnReconnect(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	prov := c.ProvideTriggerType(TriggerType{ID: "t"})
	startReady(t, c)
	pc := p.waitConn(1)
	pc.send(wire.RegisterTrigger{ID: "s1", TriggerType: "t", FunctionID: "f", Config: json.RawMessage(`{}`)})
	p.waitFrame("reply", regResult("s1"))
	if len(prov.Subscribers()) != 1 {
		t.Fatalf("Subscribers() = %v, want s1", prov.Subscribers())
	}
	p.dropAll()
	roundTrip(t, p, p.waitConn(2))
	if got := prov.Subscribers(); len(got) != 0 {
		t.Errorf("Subscribers() on a new connection = %v, want none", got)
	}
}

// TestOnRegisterPanic refuses the binding instead of crashing.
func TestOnRegisterPanic(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	prov := c.ProvideTriggerType(TriggerType{ID: "t", OnRegister: func(context.Context, Subscription) error { panic("oops") }})
	startReady(t, c)
	pc := p.waitConn(1)
	pc.send(wire.RegisterTrigger{ID: "s1", TriggerType: "t", FunctionID: "f", Config: json.RawMessage(`{}`)})
	got := p.waitFrame("reply", regResult("s1")).msg.(wire.TriggerRegistrationResult)
	want := &wire.ErrorBody{Code: "trigger_registration_failed", Message: "trigger type t: OnRegister panicked: oops"}
	if diff := cmp.Diff(want, got.Error); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if len(prov.Subscribers()) != 0 {
		t.Errorf("refused binding kept: %v", prov.Subscribers())
	}
}

// TestSubscriberRegistrationFailureLogged checks the subscriber side: the
// engine's failure report is logged at warn.
func TestSubscriberRegistrationFailureLogged(t *testing.T) {
	p := newPeer(t)
	c, logs := newClient(t, p)
	c.RegisterTrigger(Trigger{ID: "w", Type: "state", FunctionID: "f"})
	startReady(t, c)
	p.waitConn(1).send(wire.TriggerRegistrationResult{ID: "w", TriggerType: "state", FunctionID: "f",
		Error: &wire.ErrorBody{Code: "trigger_registration_failed", Message: "Failed to parse trigger config"}})
	entry := waitLog(t, logs, "trigger registration failed")
	want := map[string]any{"trigger_id": "w", "trigger_type": "state", "function_id": "f",
		"code": "trigger_registration_failed", "message": "Failed to parse trigger config"}
	if diff := cmp.Diff(want, entry.ContextMap()); diff != "" {
		t.Errorf("log fields (-want +got):\n%s", diff)
	}
	if entry.Level.String() != "warn" {
		t.Errorf("level %s, want warn", entry.Level)
	}
}
