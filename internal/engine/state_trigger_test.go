package engine

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// bindState registers fn on p and binds it to the state trigger type
// with config.
func bindState(p *peer, id, fn, config string) {
	p.t.Helper()
	p.register(fn)
	p.send(wire.RegisterTrigger{ID: id, TriggerType: triggerState, FunctionID: fn, Config: json.RawMessage(config)})
	p.barrier()
}

// nextEvent takes the next state event delivered to p, answers it and
// returns its payload.
func nextEvent(p *peer, fn string) string {
	p.t.Helper()
	inv := expect[wire.InvokeFunction](p)
	if inv.FunctionID != fn {
		p.t.Fatalf("event delivered to %s, want %s", inv.FunctionID, fn)
	}
	p.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID, Result: json.RawMessage(`null`)})
	return string(inv.Data)
}

func TestStateTriggerDeliversEveryWriteOfItsScope(t *testing.T) {
	forEachBackend(t, Options{}, func(t *testing.T, _ stateBackend, s *Engine) { testStateTriggerDeliversEveryWrite(t, s) })
}

func testStateTriggerDeliversEveryWrite(t *testing.T, s *Engine) {
	sub, writer := dial(t, s), dial(t, s)
	bindState(sub, "st", "sub::changes", `{"scope":"skills"}`)

	writer.callOK("state::set", `{"scope":"skills","key":"a","value":{"v":1}}`)
	writer.callOK("state::set", `{"scope":"other","key":"a","value":1}`) // another scope: not delivered
	writer.callOK("state::set", `{"scope":"skills","key":"a","value":{"v":2}}`)
	writer.callOK("state::delete", `{"scope":"skills","key":"a"}`)
	writer.callOK("state::delete", `{"scope":"skills","key":"never"}`) // fires even for a missing key

	want := []string{
		`{"type":"state","event_type":"state:created","scope":"skills","key":"a","old_value":null,"new_value":{"v":1}}`,
		`{"type":"state","event_type":"state:updated","scope":"skills","key":"a","old_value":{"v":1},"new_value":{"v":2}}`,
		`{"type":"state","event_type":"state:deleted","scope":"skills","key":"a","old_value":{"v":2},"new_value":null}`,
		`{"type":"state","event_type":"state:deleted","scope":"skills","key":"never","old_value":null,"new_value":null}`,
	}
	var got []string
	for range want {
		got = append(got, nextEvent(sub, "sub::changes"))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state events (-want +got):\n%s", diff)
	}
	sub.barrier() // nothing for the other scope
}

func TestStateTriggerKeyFilterAndCondition(t *testing.T) {
	s := newTestServer(t)
	sub, cond, writer := dial(t, s), dial(t, s), dial(t, s)
	bindState(sub, "a-by-key", "sub::key", `{"scope":"s","key":"k"}`)
	cond.register("cond::only-updates")
	bindState(sub, "b-by-cond", "sub::cond", `{"condition_function_id":"cond::only-updates"}`)

	writer.callOK("state::set", `{"scope":"s","key":"k","value":1}`)
	// Bindings are called in id order: a-by-key, then b-by-cond, whose
	// condition is asked first.
	if ev := nextEvent(sub, "sub::key"); ev != `{"type":"state","event_type":"state:created","scope":"s","key":"k","old_value":null,"new_value":1}` {
		t.Errorf("key-filtered event = %s", ev)
	}
	ask := expect[wire.InvokeFunction](cond)
	cond.send(wire.InvocationResult{InvocationID: ask.InvocationID, FunctionID: ask.FunctionID, Result: json.RawMessage(`false`)})

	writer.callOK("state::set", `{"scope":"s","key":"other","value":2}`)
	ask = expect[wire.InvokeFunction](cond) // a-by-key does not match "other"
	cond.send(wire.InvocationResult{InvocationID: ask.InvocationID, FunctionID: ask.FunctionID, Result: json.RawMessage(`true`)})
	if ev := nextEvent(sub, "sub::cond"); ev != `{"type":"state","event_type":"state:created","scope":"s","key":"other","old_value":null,"new_value":2}` {
		t.Errorf("condition-passed event = %s", ev)
	}
	sub.barrier() // the refused first event was never delivered to sub::cond
}

// Delivery is one call at a time: the next event waits for the answer to
// the previous one.
func TestStateTriggerDeliversOneAtATime(t *testing.T) {
	s := newTestServer(t)
	sub, writer := dial(t, s), dial(t, s)
	bindState(sub, "st", "sub::changes", `{}`)
	writer.callOK("state::set", `{"scope":"s","key":"1","value":1}`)
	writer.callOK("state::set", `{"scope":"s","key":"2","value":2}`)
	first := expect[wire.InvokeFunction](sub)
	sub.barrier() // the second event is held back while the first is unanswered
	sub.send(wire.InvocationResult{InvocationID: first.InvocationID, FunctionID: first.FunctionID})
	if ev := nextEvent(sub, "sub::changes"); ev != `{"type":"state","event_type":"state:created","scope":"s","key":"2","old_value":null,"new_value":2}` {
		t.Errorf("second event = %s", ev)
	}
}

func TestStateTriggerRefusesAConfigThatDoesNotParse(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.register("sub::changes")
	p.send(wire.RegisterTrigger{ID: "bad", TriggerType: triggerState, FunctionID: "sub::changes", Config: json.RawMessage(`{"scope":5}`)})
	res := expect[wire.TriggerRegistrationResult](p)
	if res.ID != "bad" || res.Error == nil || res.Error.Code != "trigger_registration_failed" {
		t.Fatalf("result = %+v, want trigger_registration_failed", res)
	}
	for _, b := range s.Bindings() {
		if b.ID == "bad" {
			t.Errorf("the refused binding was kept: %+v", b)
		}
	}
}
