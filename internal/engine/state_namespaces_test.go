package engine

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// newStateNamespacesServer starts an engine with opts and the 0.23
// namespace rules, registrations waiting for engine::workers::register.
func newStateNamespacesServer(t *testing.T, opts Options) *Engine {
	t.Helper()
	opts.Logger = zaptest.NewLogger(t, zaptest.Level(zap.ErrorLevel))
	opts.Namespaces, opts.NamespaceGrace = true, time.Hour
	return newTestServerWith(t, opts)
}

// callIn makes a synchronous call resolved in namespace ns and waits for
// its result, which must be the next frame.
func callIn(p *peer, ns, fn, data string) wire.InvocationResult {
	p.t.Helper()
	id := uuid.NewString()
	p.send(wire.InvokeFunction{InvocationID: id, FunctionID: fn, Data: json.RawMessage(data), Namespace: ns})
	res := expect[wire.InvocationResult](p)
	if res.InvocationID != id {
		p.t.Fatalf("result for invocation %s, want %s", res.InvocationID, id)
	}
	return res
}

// callInOK is callIn for a call that must succeed; it returns the result
// field.
func callInOK(p *peer, ns, fn, data string) string {
	p.t.Helper()
	res := callIn(p, ns, fn, data)
	if res.Error != nil {
		p.t.Fatalf("%s in %s (%s): error %+v", fn, ns, data, res.Error)
	}
	return string(res.Result)
}

// stateBinding binds fn, resolved in namespace ns, to the state trigger
// type of scope "s", naming no trigger_namespace.
func stateBinding(id, fn, ns string) wire.RegisterTrigger {
	return wire.RegisterTrigger{ID: id, TriggerType: triggerState, FunctionID: fn,
		Config: json.RawMessage(`{"scope":"s"}`), Namespace: ns}
}

// stateEventJSON is the payload of a state event on scope "s".
func stateEventJSON(eventType, key, oldValue, newValue string) string {
	return `{"type":"state","event_type":"` + eventType + `","scope":"s","key":"` + key +
		`","old_value":` + oldValue + `,"new_value":` + newValue + `}`
}

// Two namespaces each run a state worker with a store of its own: what
// is written in one is not in the other nor in default, each write fires
// only the bindings bound to its namespace's state trigger type (in the
// binding's namespace), list_groups and list_entries (cursors included)
// are per store, the introspection reads each store, engine::workers::list
// shows a state worker per namespace, and a Restart keeps them all.
func TestStateWorkerPerNamespace(t *testing.T) {
	s := newStateNamespacesServer(t, Options{StateListEntries: true})
	for _, ns := range []string{"a", "b"} {
		if err := s.StartStateIn(ns); err != nil {
			t.Fatalf("StartStateIn(%q): %v", ns, err)
		}
	}
	namespaces := []string{"a", "b", DefaultNamespace}
	subs := map[string]*peer{}
	for _, ns := range namespaces {
		p := dialIn(t, s, ns, "sub-"+ns)
		p.register("sub::on")
		p.send(stateBinding("on-"+ns, "sub::on", ns))
		p.barrier()
		if err := s.WaitBindingIn(waitCtx(t), ns, "on-"+ns); err != nil {
			t.Fatal(err)
		}
		subs[ns] = p
	}
	w := dialIn(t, s, "", "writer")

	// One write per namespace, in order. Events are delivered one at a
	// time in the order of the writes, each call awaited, so the first
	// event b's and default's subscribers see being their own write's
	// shows a's write reached neither.
	if got, want := callInOK(w, "a", "state::set", `{"scope":"s","key":"k","value":"in a"}`), `{"new_value":"in a","old_value":null}`; got != want {
		t.Errorf("state::set in a = %s, want %s", got, want)
	}
	for _, ns := range []string{"b", DefaultNamespace} {
		if res := callIn(w, ns, "state::get", `{"scope":"s","key":"k"}`); res.Error != nil || res.Result != nil {
			t.Errorf("state::get in %s of a key written in a: result %s, error %+v; want no result", ns, res.Result, res.Error)
		}
	}
	if got, want := nextEvent(subs["a"], "sub::on"), stateEventJSON(stateCreated, "k", "null", `"in a"`); got != want {
		t.Errorf("a's event\n got %s\nwant %s", got, want)
	}
	if got, want := callInOK(w, "b", "state::set", `{"scope":"s","key":"k","value":"in b"}`), `{"new_value":"in b","old_value":null}`; got != want {
		t.Errorf("state::set in b = %s, want %s", got, want)
	}
	if got, want := nextEvent(subs["b"], "sub::on"), stateEventJSON(stateCreated, "k", "null", `"in b"`); got != want {
		t.Errorf("b's first event\n got %s\nwant %s", got, want)
	}
	w.callOK("state::set", `{"scope":"s","key":"k","value":"in default"}`)
	if got, want := nextEvent(subs[DefaultNamespace], "sub::on"), stateEventJSON(stateCreated, "k", "null", `"in default"`); got != want {
		t.Errorf("default's first event\n got %s\nwant %s", got, want)
	}
	for _, ns := range namespaces {
		subs[ns].barrier() // every earlier event was delivered: none other reached it
	}

	// The introspection reads each namespace's store; writes through it
	// fire that namespace's bindings only.
	for _, tt := range []struct{ ns, want string }{{"a", `"in a"`}, {"b", `"in b"`}, {DefaultNamespace, `"in default"`}} {
		if v, ok := s.StateIn(tt.ns, "s", "k"); !ok || string(v) != tt.want {
			t.Errorf("StateIn(%q) = %s, %v; want %s", tt.ns, v, ok, tt.want)
		}
	}
	if v, ok := s.State("s", "k"); !ok || string(v) != `"in default"` {
		t.Errorf("State = %s, %v; want the default namespace's value", v, ok)
	}
	if v, ok := s.StateIn("c", "s", "k"); ok {
		t.Errorf("StateIn of a namespace without a state worker = %s, want missing", v)
	}
	if err := s.SetStateIn("a", "s", "seeded", json.RawMessage(` 7 `)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteStateIn("a", "s", "seeded"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{stateEventJSON(stateCreated, "seeded", "null", "7"), stateEventJSON(stateDeleted, "seeded", "7", "null")} {
		if got := nextEvent(subs["a"], "sub::on"); got != want {
			t.Errorf("a's event from the introspection\n got %s\nwant %s", got, want)
		}
	}
	w.callOK("state::set", `{"scope":"s","key":"last","value":0}`) // default's: delivered after those
	nextEvent(subs[DefaultNamespace], "sub::on")
	subs["b"].barrier()
	if diff := cmp.Diff([]json.RawMessage{json.RawMessage(`"in a"`)}, s.StateValuesIn("a", "s")); diff != "" {
		t.Errorf("StateValuesIn(a) (-want +got):\n%s", diff)
	}

	// list_groups and list_entries read their namespace's store.
	callInOK(w, "a", "state::set", `{"scope":"only-a","key":"x","value":1}`)
	callInOK(w, "a", "state::set", `{"scope":"s","key":"k2","value":2}`)
	nextEvent(subs["a"], "sub::on")
	for _, tt := range []struct{ ns, want string }{{"a", `{"groups":["only-a","s"]}`}, {"b", `{"groups":["s"]}`}} {
		if got := callInOK(w, tt.ns, "state::list_groups", `{}`); got != tt.want {
			t.Errorf("state::list_groups in %s = %s, want %s", tt.ns, got, tt.want)
		}
	}
	for _, tt := range []struct{ ns, want string }{
		{"a", `{"done":true,"entries":[["k","in a"],["k2",2]],"next_cursor":null,"offset":0,"total":2}`},
		{"b", `{"done":true,"entries":[["k","in b"]],"next_cursor":null,"offset":0,"total":1}`},
		{DefaultNamespace, `{"done":true,"entries":[["k","in default"],["last",0]],"next_cursor":null,"offset":0,"total":2}`},
	} {
		if got := callInOK(w, tt.ns, "state::list_entries", `{"scope":"s"}`); got != tt.want {
			t.Errorf("state::list_entries in %s\n got %s\nwant %s", tt.ns, got, tt.want)
		}
	}
	first := decodePage(t, json.RawMessage(callInOK(w, "a", "state::list_entries", `{"scope":"s","limit":1}`)))
	in := `{"scope":"s","limit":1,"cursor":"` + *first.NextCursor + `"}`
	if res := callIn(w, "b", "state::list_entries", in); res.Error == nil || res.Error.Code != codeInvalidCursor {
		t.Errorf("a's cursor in b: %s %+v, want %s", res.Result, res.Error, codeInvalidCursor)
	}
	if got := decodePage(t, json.RawMessage(callInOK(w, "a", "state::list_entries", in))).entries(); !slices.Equal(got, []string{"k2=2"}) {
		t.Errorf("a's second page = %q, want k2=2", got)
	}

	// A state worker per namespace in the discovery.
	var list struct {
		Workers []struct{ Name, Namespace string } `json:"workers"`
	}
	if err := json.Unmarshal(w.callOK("engine::workers::list", `{}`), &list); err != nil {
		t.Fatal(err)
	}
	var stateRows []string
	for _, r := range list.Workers {
		if r.Name == stateWorkerName {
			stateRows = append(stateRows, r.Namespace)
		}
	}
	if diff := cmp.Diff(namespaces, stateRows); diff != "" {
		t.Errorf("iii-state rows of engine::workers::list by namespace (-want +got):\n%s", diff)
	}

	// A Restart keeps every namespace's state worker and store.
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"a", "b"} {
		if !slices.Equal(stateFunctionIDsIn(s, ns), []string{"state::delete", "state::get", "state::list", "state::list_entries", "state::list_groups", "state::set"}) {
			t.Errorf("state functions in %s after a restart: %q", ns, stateFunctionIDsIn(s, ns))
		}
		if types := s.TriggerTypesIn(ns); len(types) != 1 || types[0].ID != triggerState {
			t.Errorf("trigger types in %s after a restart: %+v, want state", ns, types)
		}
	}
	if v, ok := s.StateIn("b", "s", "k"); !ok || string(v) != `"in b"` {
		t.Errorf("StateIn(b) after a restart = %s, %v", v, ok)
	}
}

// stateFunctionIDsIn lists the state::* functions of namespace ns.
func stateFunctionIDsIn(s *Engine, ns string) []string {
	var ids []string
	for _, f := range s.FunctionsIn(ns) {
		if strings.HasPrefix(f.ID, "state::") {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// A binding registered from namespace a without a trigger_namespace
// before a has a state worker falls back to default's state trigger
// type, and fires on default's writes; StartStateIn("a") claims it back,
// after which a's writes fire it and default's do not. A binding that
// names trigger_namespace a waits parked until then, and one of those
// whose config the type refuses stays parked, its owner told.
func TestNamespaceStateWorkerClaimsBackItsBindings(t *testing.T) {
	s := newStateNamespacesServer(t, Options{})
	sub := dialIn(t, s, "a", "sub")
	sub.register("sub::on")
	sub.send(stateBinding("fallback", "sub::on", "a"))
	strict := stateBinding("strict", "sub::on", "a")
	strict.TriggerNamespace = "a"
	sub.send(strict)
	refused := wire.RegisterTrigger{ID: "refused", TriggerType: triggerState, FunctionID: "sub::on",
		Config: json.RawMessage(`"not an object"`), Namespace: "a", TriggerNamespace: "a"}
	sub.send(refused)
	sub.barrier()
	if err := s.WaitBindingIn(waitCtx(t), DefaultNamespace, "fallback"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"strict", "refused"} {
		if parked, found := bindingParkedIn(s, "a", id); !found || !parked {
			t.Errorf("%s before a's state worker: parked=%v found=%v, want parked", id, parked, found)
		}
	}
	if err := s.SetState("s", "before", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	if got, want := nextEvent(sub, "sub::on"), stateEventJSON(stateCreated, "before", "null", "1"); got != want {
		t.Errorf("default's write through the fallback\n got %s\nwant %s", got, want)
	}

	if err := s.StartStateIn("a"); err != nil {
		t.Fatal(err)
	}
	res := expect[wire.TriggerRegistrationResult](sub)
	if res.ID != "refused" || res.Error == nil || res.Error.Code != "trigger_registration_failed" {
		t.Errorf("owner of the refused binding got %+v, want trigger_registration_failed", res)
	}
	for _, id := range []string{"fallback", "strict"} {
		if err := s.WaitBindingIn(waitCtx(t), "a", id); err != nil {
			t.Fatal(err)
		}
	}
	if parked, _ := bindingParkedIn(s, "a", "refused"); !parked {
		t.Error("the refused binding is live, want it parked")
	}
	// Default's write reaches neither; a's reaches both, in id order.
	if err := s.SetState("s", "default", json.RawMessage(`2`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStateIn("a", "s", "in-a", json.RawMessage(`3`)); err != nil {
		t.Fatal(err)
	}
	want := stateEventJSON(stateCreated, "in-a", "null", "3")
	for range []string{"fallback", "strict"} {
		if got := nextEvent(sub, "sub::on"); got != want {
			t.Errorf("event after the claim-back\n got %s\nwant %s", got, want)
		}
	}
	sub.barrier()
}

// bindingParkedIn reports whether the binding whose function resolves in
// ns is parked.
func bindingParkedIn(s *Engine, ns, id string) (parked, found bool) {
	for _, b := range s.BindingsIn(ns) {
		if b.ID == id {
			return b.Parked, true
		}
	}
	return false, false
}

// StartStateIn fires engine::workers-available as StartState does, once
// per namespace: a second call for a namespace changes nothing and keeps
// its store.
func TestStartStateInAnnouncesTheWorkerOnce(t *testing.T) {
	s := newStateNamespacesServer(t, Options{})
	watch := dialIn(t, s, "", "watch")
	watch.register("watch::workers")
	watch.send(wire.RegisterTrigger{ID: "w", TriggerType: triggerWorkersAvailable, FunctionID: "watch::workers"})
	watch.barrier()

	if err := s.StartStateIn("a"); err != nil {
		t.Fatal(err)
	}
	if got := string(nextInvocation(watch).Data); got != `{"event":"worker_connected","worker_id":"iii-state"}` {
		t.Errorf("engine::workers-available = %s", got)
	}
	if err := s.SetStateIn("a", "s", "k", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	if err := s.StartStateIn("a"); err != nil {
		t.Errorf("a second StartStateIn(a): %v, want nil", err)
	}
	if v, ok := s.StateIn("a", "s", "k"); !ok || string(v) != "1" {
		t.Errorf("a's store after a second StartStateIn = %s, %v; want it kept", v, ok)
	}
	// The next event is the next connection's: the second call fired
	// nothing (firing is done before StartStateIn returns).
	other := dial(t, s)
	if got, want := string(nextInvocation(watch).Data), `{"event":"worker_connected","worker_id":"`+other.id+`"}`; got != want {
		t.Errorf("engine::workers-available = %s, want %s", got, want)
	}
}

// Without Options.Namespaces, or with a blank namespace, StartStateIn is
// refused with an error naming what to change, and nothing is installed;
// the default namespace's is StartState, a no-op on an engine that has
// it. The namespaced introspection refuses writes to a namespace without
// a state worker and reads it as empty.
func TestStartStateInRefusals(t *testing.T) {
	plain := newTestServer(t)
	err := plain.StartStateIn("a")
	if err == nil || !strings.Contains(err.Error(), "Options.Namespaces") || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("StartStateIn(a) without Namespaces: %v, want an error naming the namespace and Options.Namespaces", err)
	}
	if ids := stateFunctionIDsIn(plain, "a"); ids != nil || plain.TriggerTypesIn("a") != nil {
		t.Errorf("after the refusal: functions %q, trigger types %+v in a; want none", ids, plain.TriggerTypesIn("a"))
	}
	if err := plain.StartStateIn(DefaultNamespace); err != nil {
		t.Errorf("StartStateIn(default) on an engine with its state worker: %v, want nil", err)
	}
	if got := string(dial(t, plain).callOK("state::set", `{"scope":"s","key":"k","value":1}`)); got != `{"new_value":1,"old_value":null}` {
		t.Errorf("default's state::set = %s", got)
	}
	if err := plain.SetStateIn("a", "s", "k", json.RawMessage(`1`)); err == nil || !strings.Contains(err.Error(), `StartStateIn("a")`) {
		t.Errorf("SetStateIn(a) without a state worker: %v, want an error pointing at StartStateIn", err)
	}
	if err := plain.DeleteStateIn("a", "s", "k"); err == nil {
		t.Error("DeleteStateIn(a) without a state worker succeeded")
	}
	if got := plain.StateValuesIn("a", "s"); got == nil || len(got) != 0 {
		t.Errorf("StateValuesIn(a) without a state worker = %#v, want empty", got)
	}

	s := newStateNamespacesServer(t, Options{})
	for _, ns := range []string{"", " \t"} {
		if err := s.StartStateIn(ns); err == nil || !strings.Contains(err.Error(), "blank") {
			t.Errorf("StartStateIn(%q): %v, want a blank-namespace error", ns, err)
		}
		if ids := stateFunctionIDsIn(s, ns); ids != nil {
			t.Errorf("functions %q in %q after the refusal", ids, ns)
		}
	}
}

// A namespace's state worker starts alongside a late default one: its
// bindings resolve at home, parked until StartStateIn, and stay there
// when the default one registers.
func TestNamespaceStateWorkerWithALateDefaultOne(t *testing.T) {
	s := newStateNamespacesServer(t, Options{StateWorkerLate: true})
	sub := dialIn(t, s, "a", "sub")
	sub.register("sub::on")
	sub.send(stateBinding("b", "sub::on", "a"))
	sub.barrier()
	if parked, found := bindingParkedIn(s, "a", "b"); !found || !parked {
		t.Fatalf("binding with no state worker anywhere: parked=%v found=%v, want parked", parked, found)
	}
	if err := s.StartStateIn("a"); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitBindingIn(waitCtx(t), "a", "b"); err != nil {
		t.Fatal(err)
	}
	if ids := stateFunctionIDs(s); ids != nil {
		t.Errorf("default's state functions %q before StartState, want none", ids)
	}
	s.StartState()
	if err := s.SetState("s", "d", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStateIn("a", "s", "a", json.RawMessage(`2`)); err != nil {
		t.Fatal(err)
	}
	if got, want := nextEvent(sub, "sub::on"), stateEventJSON(stateCreated, "a", "null", "2"); got != want {
		t.Errorf("first event after both started\n got %s\nwant %s", got, want)
	}
	if err := s.WaitBindingIn(waitCtx(t), "a", "b"); err != nil {
		t.Fatal(err)
	}
}

// Only the default namespace's store is kept in the state log (D67):
// another namespace's state lives in memory and is gone after a new
// Start on the same directory.
func TestOnlyTheDefaultStoreIsPersisted(t *testing.T) {
	dir := t.TempDir()
	s := newStateNamespacesServer(t, Options{DataDir: dir})
	if err := s.StartStateIn("a"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStateIn("a", "s", "in-a", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetState("s", "in-default", json.RawMessage(`2`)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	st := newStateStore()
	if _, _, err := replayLog(filepath.Join(dir, StateLog), st); err != nil {
		t.Fatal(err)
	}
	f := st.snapshot()
	want := stateFileFormat{Version: 1, Scopes: []stateFileScope{{Scope: "s", Rows: []stateFileRow{{Key: "in-default", Value: json.RawMessage(`2`)}}}}}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("state log (-want +got):\n%s", diff)
	}

	again := newStateNamespacesServer(t, Options{DataDir: dir})
	if err := again.StartStateIn("a"); err != nil {
		t.Fatal(err)
	}
	if v, ok := again.StateIn("a", "s", "in-a"); ok {
		t.Errorf("a's state after a new Start = %s, want gone", v)
	}
	if _, ok := again.State("s", "in-default"); !ok {
		t.Error("default's state is gone after a new Start")
	}
}
