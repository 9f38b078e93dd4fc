package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// stateFunctionIDs lists the state::* functions the engine has.
func stateFunctionIDs(s *Engine) []string {
	var ids []string
	for _, f := range s.Functions() {
		if strings.HasPrefix(f.ID, "state::") {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

func hasTriggerType(s *Engine, id string) bool {
	return slices.ContainsFunc(s.TriggerTypes(), func(t TriggerType) bool { return t.ID == id })
}

func bindingParked(s *Engine, id string) (parked, found bool) {
	for _, b := range s.Bindings() {
		if b.ID == id {
			return b.Parked, true
		}
	}
	return false, false
}

// nextInvocation takes the next invokefunction p receives, skipping other
// frames, and answers it.
func nextInvocation(p *peer) wire.InvokeFunction {
	p.t.Helper()
	for {
		if inv, ok := p.next().(wire.InvokeFunction); ok {
			p.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID, Result: json.RawMessage(`null`)})
			return inv
		}
	}
}

// An engine started with StateWorkerLate has no state worker: no state::*
// function, no state trigger type, state bindings parked. StartState
// registers it as a late state worker would: the functions appear (and
// engine::functions-available says so), the trigger type appears and
// takes the parked bindings, a binding whose config it refuses stays
// parked with its owner told, and engine::workers-available fires.
func TestStateWorkerRegistersLate(t *testing.T) {
	s := newTestServerWith(t, Options{StateWorkerLate: true, StateListEntries: true, FunctionsPollInterval: 20 * time.Millisecond})
	watch := dial(t, s)
	watch.register("watch::functions")
	watch.register("watch::workers")
	watch.send(wire.RegisterTrigger{ID: "w-fns", TriggerType: triggerFunctionsAvailable, FunctionID: "watch::functions"})
	watch.send(wire.RegisterTrigger{ID: "w-workers", TriggerType: triggerWorkersAvailable, FunctionID: "watch::workers"})
	// Not a barrier: events may reach watch from now on.
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, id := range []string{"w-fns", "w-workers"} {
		if err := s.WaitBinding(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	sub := dial(t, s)
	if ids := stateFunctionIDs(s); len(ids) != 0 || hasTriggerType(s, triggerState) {
		t.Fatalf("before StartState: state functions %q, state trigger type %v; want none", ids, hasTriggerType(s, triggerState))
	}
	if res := sub.call("state::get", `{"scope":"s","key":"a"}`); res.Error == nil || res.Error.Code != "function_not_found" {
		t.Errorf("state::get before StartState: %+v, want function_not_found", res.Error)
	}
	bindState(sub, "st", "sub::changes", `{"scope":"s"}`)
	sub.send(wire.RegisterTrigger{ID: "st-bad", TriggerType: triggerState, FunctionID: "sub::changes", Config: json.RawMessage(`{"scope":1}`)})
	sub.barrier()
	for _, id := range []string{"st", "st-bad"} {
		if parked, found := bindingParked(s, id); !parked || !found {
			t.Errorf("binding %s before StartState: parked %v, found %v; want parked", id, parked, found)
		}
	}
	if err := s.SetState("s", "before", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}

	s.StartState()

	want := []string{"state::delete", "state::get", "state::list", "state::list_entries", "state::list_groups", "state::set"}
	if diff := cmp.Diff(want, stateFunctionIDs(s)); diff != "" || !hasTriggerType(s, triggerState) {
		t.Errorf("after StartState: state trigger type %v; functions (-want +got):\n%s", hasTriggerType(s, triggerState), diff)
	}
	if parked, _ := bindingParked(s, "st"); parked {
		t.Error("binding st still parked after StartState")
	}
	refusal := expect[wire.TriggerRegistrationResult](sub)
	if parked, _ := bindingParked(s, "st-bad"); refusal.ID != "st-bad" || refusal.Error == nil || refusal.Error.Code != "trigger_registration_failed" || !parked {
		t.Errorf("binding st-bad: result %+v, parked %v; want it refused and parked", refusal, parked)
	}
	writer := dial(t, s)
	writer.callOK("state::set", `{"scope":"s","key":"after","value":2}`)
	if got := nextEvent(sub, "sub::changes"); got != `{"type":"state","event_type":"state:created","scope":"s","key":"after","old_value":null,"new_value":2}` {
		t.Errorf("event after StartState = %s", got)
	}
	if got := string(writer.callOK("state::list", `{"scope":"s"}`)); got != `[1,2]` {
		t.Errorf("state::list = %s, want what was written before and after", got)
	}

	sawWorker, sawFunctions := false, false
	for !sawWorker || !sawFunctions {
		inv := nextInvocation(watch)
		switch inv.FunctionID {
		case "watch::workers":
			sawWorker = sawWorker || string(inv.Data) == `{"event":"worker_connected","worker_id":"iii-state"}`
		case "watch::functions":
			sawFunctions = sawFunctions || strings.Contains(string(inv.Data), `"function_id":"state::list_entries"`)
		}
	}
}

// After StartState the state worker is part of the engine: a restart
// keeps it. Before, a restart leaves it absent; and StartState on an
// engine that has its state worker changes nothing.
func TestStateWorkerLateAcrossRestarts(t *testing.T) {
	late := newTestServerWith(t, Options{StateWorkerLate: true})
	if err := late.Restart(); err != nil {
		t.Fatal(err)
	}
	if ids := stateFunctionIDs(late); len(ids) != 0 || hasTriggerType(late, triggerState) {
		t.Errorf("restarted before StartState: %q, trigger type %v; want none", ids, hasTriggerType(late, triggerState))
	}
	late.StartState()
	if err := late.Restart(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := late.WaitTriggerType(ctx, triggerState); err != nil {
		t.Error(err)
	}
	p := dial(t, late)
	p.callOK("state::set", `{"scope":"s","key":"a","value":1}`)

	plain := newTestServer(t)
	before := stateFunctionIDs(plain)
	plain.StartState()
	if diff := cmp.Diff(before, stateFunctionIDs(plain)); diff != "" || !hasTriggerType(plain, triggerState) {
		t.Errorf("StartState on a default engine changed it (-before +after):\n%s", diff)
	}
}
