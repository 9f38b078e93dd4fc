package engine

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// bind is a binding of acme::changes to fn.
func bind(id, fn string) wire.RegisterTrigger {
	return wire.RegisterTrigger{ID: id, TriggerType: "acme::changes", FunctionID: fn, Config: json.RawMessage(`{}`)}
}

// Trigger types are keyed by namespace. A binding that names no
// trigger_namespace finds its provider in its worker's namespace first,
// then in default; one that names it is strict. A provider that appears
// at home later claims back what fell back to default, and hands it back
// when it leaves. Frames to providers carry namespace and
// trigger_namespace only when they are not default.
func TestTriggerProvidersPerNamespace(t *testing.T) {
	s := newNamespacedServer(t)
	engineWide := dialIn(t, s, "", "engine-wide")
	engineWide.send(wire.RegisterTriggerType{ID: "acme::changes", Description: "default's"})
	engineWide.barrier()
	shop := dialIn(t, s, "shop", "shop")

	// No provider in shop: the default one serves it.
	shop.send(bind("b1", "shop::on"))
	if diff := cmp.Diff(bind("b1", "shop::on"), expect[wire.RegisterTrigger](engineWide)); diff != "" {
		t.Errorf("fallback binding (-want +got):\n%s", diff)
	}
	// Strict: default named explicitly, and a namespace nobody provides.
	explicit := bind("b2", "shop::on")
	explicit.TriggerNamespace, explicit.Namespace = DefaultNamespace, "shop"
	shop.send(explicit)
	wantB2 := bind("b2", "shop::on")
	wantB2.Namespace = "shop"
	if diff := cmp.Diff(wantB2, expect[wire.RegisterTrigger](engineWide)); diff != "" {
		t.Errorf("explicit binding (-want +got):\n%s", diff)
	}
	nowhere := bind("b3", "shop::on")
	nowhere.TriggerNamespace = "nowhere"
	shop.send(nowhere)
	shop.barrier()
	if live, parked := bindingState(t, s, "b3"); live || !parked {
		t.Errorf("b3 live=%v parked=%v, want parked: nothing provides it in nowhere", live, parked)
	}

	// shop's own provider claims b1 back, not b2 (explicit).
	shopProv := dialIn(t, s, "shop", "shop-provider")
	shopProv.send(wire.RegisterTriggerType{ID: "acme::changes", Description: "shop's"})
	if got := expect[wire.UnregisterTrigger](engineWide); got.ID != "b1" {
		t.Errorf("default's provider was told to drop %+v, want b1", got)
	}
	claimed := bind("b1", "shop::on")
	claimed.TriggerNamespace = "shop"
	if diff := cmp.Diff(claimed, expect[wire.RegisterTrigger](shopProv)); diff != "" {
		t.Errorf("claimed-back binding (-want +got):\n%s", diff)
	}
	if err := s.WaitBindingIn(waitCtx(t), "shop", "b1"); err != nil {
		t.Fatal(err)
	}
	shopProv.barrier()
	engineWide.barrier()
	// Later bindings from shop go straight to shop's provider; a worker
	// of another namespace still falls back to default's.
	shop.send(bind("b4", "shop::on"))
	b4 := bind("b4", "shop::on")
	b4.TriggerNamespace = "shop"
	if diff := cmp.Diff(b4, expect[wire.RegisterTrigger](shopProv)); diff != "" {
		t.Errorf("binding from shop (-want +got):\n%s", diff)
	}
	elsewhere := dialIn(t, s, "elsewhere", "")
	elsewhere.send(bind("b5", "x::on"))
	if diff := cmp.Diff(bind("b5", "x::on"), expect[wire.RegisterTrigger](engineWide)); diff != "" {
		t.Errorf("binding from elsewhere (-want +got):\n%s", diff)
	}

	// shop's provider leaves: its bindings fall back to default's.
	disconnect(t, s, shopProv)
	for _, want := range []wire.RegisterTrigger{bind("b1", "shop::on"), bind("b4", "shop::on")} {
		if diff := cmp.Diff(want, expect[wire.RegisterTrigger](engineWide)); diff != "" {
			t.Errorf("binding after shop's provider left (-want +got):\n%s", diff)
		}
	}
	if err := s.WaitBindingIn(waitCtx(t), DefaultNamespace, "b4"); err != nil {
		t.Fatal(err)
	}
}

// registertriggertype's namespace, when given, overrides the
// connection's; trigger types are listed per namespace, the engine's own
// in default.
func TestTriggerTypeNamespace(t *testing.T) {
	s := newNamespacedServer(t)
	p := dialIn(t, s, "shop", "p")
	p.send(wire.RegisterTriggerType{ID: "acme::mine", Description: ""})
	p.send(wire.RegisterTriggerType{ID: "acme::theirs", Description: "", Namespace: "billing"})
	p.barrier()
	ids := func(ns string) (out []string) {
		for _, tt := range s.TriggerTypesIn(ns) {
			out = append(out, tt.ID)
		}
		return out
	}
	for _, tt := range []struct {
		ns   string
		want []string
	}{
		{"shop", []string{"acme::mine"}},
		{"billing", []string{"acme::theirs"}},
		{DefaultNamespace, []string{triggerFunctionsAvailable, triggerWorkersAvailable, triggerState}},
	} {
		if diff := cmp.Diff(tt.want, ids(tt.ns)); diff != "" {
			t.Errorf("types in %s (-want +got):\n%s", tt.ns, diff)
		}
	}
	got := string(p.callOK("engine::triggers::list", `{"prefix":"acme::"}`))
	want := `{"triggers":[{"description":"","id":"acme::mine","namespace":"shop","worker_name":"p"},` +
		`{"description":"","id":"acme::theirs","namespace":"billing","worker_name":"p"}]}`
	if got != want {
		t.Errorf("engine::triggers::list\n got %s\nwant %s", got, want)
	}
}

// Blank namespaces on a binding are refused with INVALID_NAMESPACE, the
// field named; a blank one on a trigger type is dropped.
func TestBlankTriggerNamespacesAreRefused(t *testing.T) {
	s := newNamespacedServer(t)
	p := dialIn(t, s, "shop", "")
	for _, tt := range []struct{ frame, field string }{
		{`{"type":"registertrigger","id":"b","trigger_type":"state","function_id":"f","config":{},"namespace":" "}`, "namespace"},
		{`{"type":"registertrigger","id":"b","trigger_type":"state","function_id":"f","config":{},"trigger_namespace":""}`, "trigger_namespace"},
	} {
		p.sendRaw(1, tt.frame)
		res := expect[wire.TriggerRegistrationResult](p)
		want := &wire.ErrorBody{Code: "INVALID_NAMESPACE",
			Message: "`" + tt.field + "` is empty: it was named and left blank. Give it a name, or omit it to use `default`."}
		if diff := cmp.Diff(want, res.Error); diff != "" || res.ID != "b" {
			t.Errorf("%s: result %+v (-want +got):\n%s", tt.frame, res, diff)
		}
	}
	p.sendRaw(1, `{"type":"registertriggertype","id":"blank","description":"","namespace":""}`)
	p.barrier()
	for _, ns := range []string{"shop", DefaultNamespace} {
		for _, tt := range s.TriggerTypesIn(ns) {
			if tt.ID == "blank" {
				t.Errorf("a trigger type with a blank namespace was registered in %q", ns)
			}
		}
	}
	if got := s.BindingsIn("shop"); got != nil {
		t.Errorf("bindings %+v, want none", got)
	}
}

// Firing calls the function in the binding's namespace (absent: default),
// for the engine's own trigger types and for state.
func TestFiringResolvesInTheBindingsNamespace(t *testing.T) {
	s := newNamespacedServer(t)
	w := dialIn(t, s, "orders", "w")
	w.register("w::on")
	inOrders := wire.RegisterTrigger{ID: "a", TriggerType: triggerWorkersAvailable, FunctionID: "w::on",
		Config: json.RawMessage(`{}`), Namespace: "orders"}
	inDefault := inOrders
	inDefault.ID, inDefault.Namespace = "b", ""
	w.send(inOrders)
	w.send(inDefault) // w::on is not in default: this one reaches nothing
	w.barrier()

	x := dial(t, s)
	inv := expect[wire.InvokeFunction](w)
	if inv.FunctionID != "w::on" || string(inv.Data) != `{"event":"worker_connected","worker_id":"`+x.id+`"}` {
		t.Errorf("fired %s %s", inv.FunctionID, inv.Data)
	}
	w.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID})
	x.barrier() // the connect event's calls are all made
	w.barrier() // and none other reached w

	stateBinding := wire.RegisterTrigger{ID: "s", TriggerType: triggerState, FunctionID: "w::on",
		Config: json.RawMessage(`{"scope":"sc"}`), Namespace: "orders"}
	w.send(stateBinding)
	w.barrier()
	if err := s.SetState("sc", "k", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	inv = expect[wire.InvokeFunction](w)
	if inv.FunctionID != "w::on" || !containsKey(string(inv.Data), "event_type") {
		t.Errorf("state fired %s %s", inv.FunctionID, inv.Data)
	}
	w.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID})
}
