package engine

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// newNamespacedServer starts an engine with the 0.23 namespace rules. Its
// grace period is long unless grace is given, so registrations wait for
// the engine::workers::register call.
func newNamespacedServer(t *testing.T, grace ...time.Duration) *Engine {
	t.Helper()
	opts := Options{Logger: zaptest.NewLogger(t, zaptest.Level(zap.ErrorLevel)), Namespaces: true, NamespaceGrace: time.Hour}
	if len(grace) > 0 {
		opts.NamespaceGrace = grace[0]
	}
	return newTestServerWith(t, opts)
}

// dialIn connects a worker that declares namespace ns (none when "") and
// name (none when ""), as an SDK does before anything else.
func dialIn(t *testing.T, s *Engine, ns, name string) *peer {
	t.Helper()
	p := dial(t, s)
	meta := map[string]any{"pid": 1}
	if ns != "" {
		meta["namespace"] = ns
	}
	if name != "" {
		meta["name"] = name
	}
	p.registerWorker(string(mustEncode(meta)))
	return p
}

// functionIDsIn lists the ids registered in ns, without the built-ins.
func functionIDsIn(s *Engine, ns string) []string {
	var ids []string
	for _, f := range s.FunctionsIn(ns) {
		if f.WorkerID != "" {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// expectRaw returns the next frame's bytes, which must decode as a T.
func expectRaw[T wire.Message](p *peer) string {
	p.t.Helper()
	m, raw, err := p.recvRaw()
	if err != nil {
		p.t.Fatal(err)
	}
	if _, ok := m.(T); !ok {
		var want T
		p.t.Fatalf("worker %s: got %s, want %s", p.id, raw, want.MessageType())
	}
	return string(raw)
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// Registrations sent before engine::workers::register are held, then
// applied in arrival order in the namespace the call declares; calls are
// not held.
func TestRegistrationsWaitForTheNamespace(t *testing.T) {
	s := newNamespacedServer(t)
	p := dial(t, s)
	p.send(wire.RegisterFunction{ID: "svc::a"})
	p.send(wire.RegisterTriggerType{ID: "svc::changes", Description: ""})
	p.send(wire.RegisterFunction{ID: "svc::b"})
	p.send(wire.UnregisterFunction{ID: "svc::a"}) // applied after svc::a's registration, so it is gone
	p.barrier()
	if got := functionIDsIn(s, DefaultNamespace); got != nil {
		t.Errorf("before the metadata call the default namespace has %v, want nothing", got)
	}
	if got := s.TriggerTypesIn("orders"); got != nil {
		t.Errorf("before the metadata call: trigger types %+v", got)
	}
	// A call is not held.
	if res := p.call("engine::functions::list", `{}`); res.Error != nil {
		t.Errorf("engine::functions::list while held: %+v", res.Error)
	}

	p.registerWorker(`{"name":"svc","namespace":"orders"}`)
	if got, want := functionIDsIn(s, "orders"), []string{"svc::b"}; !slices.Equal(got, want) {
		t.Errorf("after the metadata call orders has %v, want %v", got, want)
	}
	if got := s.TriggerTypesIn("orders"); len(got) != 1 || got[0].ID != "svc::changes" || got[0].ProviderID != p.id {
		t.Errorf("trigger types in orders: %+v", got)
	}
	if got := functionIDsIn(s, DefaultNamespace); got != nil {
		t.Errorf("the default namespace has %v, want nothing", got)
	}
	// Once the namespace is known, registrations apply at once.
	p.register("svc::c")
	if _, ok := s.FunctionIn("orders", "svc::c"); !ok {
		t.Error("svc::c is not registered in orders")
	}
	if w := s.Workers()[0]; w.Namespace != "orders" || w.Name != "svc" {
		t.Errorf("worker %+v, want svc in orders", w)
	}
}

// A worker that never calls engine::workers::register has its
// registrations applied in the default namespace when the grace period
// ends; a later call cannot move the connection.
func TestGracePeriodAppliesHeldRegistrationsInDefault(t *testing.T) {
	s := newNamespacedServer(t, 10*time.Millisecond)
	p := dial(t, s)
	p.send(wire.RegisterFunction{ID: "late::f"})
	if err := s.WaitFunctionIn(waitCtx(t), DefaultNamespace, "late::f"); err != nil {
		t.Fatal(err)
	}
	p.registerWorker(`{"name":"late","namespace":"orders"}`)
	p.send(wire.RegisterFunction{ID: "late::g"})
	// late::g may arrive while the grace goroutine still drains the held
	// frames, and then queues behind them: invocations are never held, so
	// a round trip does not wait for it (nor does the engine's).
	if err := s.WaitFunctionIn(waitCtx(t), DefaultNamespace, "late::g"); err != nil {
		t.Fatal(err)
	}
	if got, want := functionIDsIn(s, DefaultNamespace), []string{"late::f", "late::g"}; !slices.Equal(got, want) {
		t.Errorf("default has %v, want %v", got, want)
	}
	if got := functionIDsIn(s, "orders"); got != nil {
		t.Errorf("orders has %v, want nothing: the grace period fixed the namespace", got)
	}
	if w := s.Workers()[0]; w.Namespace != DefaultNamespace {
		t.Errorf("worker namespace %q, want default", w.Namespace)
	}
	// Its name is leased where it is: another "late" there is refused.
	other := dial(t, s)
	other.invoke("engine::workers::register", `{"name":"late"}`)
	if got := expect[wire.RegistrationRejected](other); got.Namespace != DefaultNamespace || got.OwnerWorkerID != p.id {
		t.Errorf("rejection %+v, want the name held in default by %s", got, p.id)
	}
}

// A blank namespace in the metadata call is refused, in the engine's
// words; the connection's registrations stay held.
func TestBlankNamespaceInTheMetadataCallIsRefused(t *testing.T) {
	s := newNamespacedServer(t)
	for _, tt := range []struct{ data, msg string }{
		{`{"namespace":""}`, `namespace is empty: worker '<unnamed>' declared "". Give it a name, or omit the field to register in 'default'.`},
		{`{"namespace":" \t","name":"w"}`, `namespace is empty: worker 'w' declared " \t". Give it a name, or omit the field to register in 'default'.`},
		{`{"namespace":"\u00a0\n"}`, `namespace is empty: worker '<unnamed>' declared "\u{a0}\n". Give it a name, or omit the field to register in 'default'.`},
		{`{"namespace":5}`, "Failed to deserialize input for engine::workers::register: invalid type: integer `5`, expected a string"},
	} {
		t.Run(tt.data, func(t *testing.T) {
			p := dial(t, s)
			p.send(wire.RegisterFunction{ID: "held::f"})
			res := p.call("engine::workers::register", tt.data)
			if res.Error == nil || res.Error.Message != tt.msg {
				t.Fatalf("error %+v, want %q", res.Error, tt.msg)
			}
			if _, ok := s.Function("held::f"); ok {
				t.Error("held::f was applied after a refused metadata call")
			}
			p.registerWorker(`{"namespace":"kept"}`)
			if _, ok := s.FunctionIn("kept", "held::f"); !ok {
				t.Error("held::f is not in kept after a valid metadata call")
			}
			disconnect(t, s, p)
		})
	}
}

// The same function id lives in two namespaces at once, and each call
// goes where its frame's namespace says: absent means default, never the
// caller's own.
func TestSameFunctionIDInTwoNamespaces(t *testing.T) {
	s := newNamespacedServer(t)
	orders, analytics := dialIn(t, s, "orders", "svc"), dialIn(t, s, "analytics", "svc")
	for _, p := range []*peer{orders, analytics} {
		p.register("svc::get")
	}
	answer := func(name string) func(wire.InvokeFunction) wire.InvocationResult {
		return func(wire.InvokeFunction) wire.InvocationResult {
			return wire.InvocationResult{Result: json.RawMessage(`"` + name + `"`)}
		}
	}
	orders.serve(answer("orders"))
	analytics.serve(answer("analytics"))
	caller := dialIn(t, s, "orders", "caller")
	for _, tt := range []struct{ ns, want string }{{"orders", `"orders"`}, {"analytics", `"analytics"`}} {
		id := uuid.NewString()
		caller.send(wire.InvokeFunction{InvocationID: id, FunctionID: "svc::get", Data: json.RawMessage(`{}`), Namespace: tt.ns})
		res := expect[wire.InvocationResult](caller)
		if res.Error != nil || string(res.Result) != tt.want {
			t.Errorf("call in %s: %+v, want %s", tt.ns, res, tt.want)
		}
	}
	res := caller.call("svc::get", `{}`)
	want := "Function svc::get not found in namespace default. It is registered in namespace(s): analytics, orders."
	if res.Error == nil || res.Error.Code != "function_not_found" || res.Error.Message != want {
		t.Errorf("call without a namespace from a worker in orders: %+v, want %q", res.Error, want)
	}
}

// A function key another live connection owns is refused with
// registrationrejected; the connection stays open, the owner keeps it,
// its own re-registration is idempotent, and once it is gone the key is
// free.
func TestFunctionConflictIsRejected(t *testing.T) {
	s := newNamespacedServer(t)
	owner, other := dialIn(t, s, "orders", "a"), dialIn(t, s, "orders", "b")
	owner.register("svc::get")
	other.send(wire.RegisterFunction{ID: "svc::get", Description: "the second"})
	want := `{"type":"registrationrejected","code":"FUNCTION_NAMESPACE_CONFLICT","namespace":"orders",` +
		`"function_id":"svc::get","owner_worker_id":"` + owner.id + `"}`
	if got := expectRaw[wire.RegistrationRejected](other); got != want {
		t.Errorf("rejection\n got %s\nwant %s", got, want)
	}
	other.register("svc::other") // still connected and registering
	owner.register("svc::get")   // idempotent: nothing comes back
	if f, _ := s.FunctionIn("orders", "svc::get"); f.WorkerID != owner.id || f.Description != "" {
		t.Errorf("svc::get = %+v, want the owner's", f)
	}
	if w := s.Workers()[1]; slices.Contains(w.Functions, "svc::get") {
		t.Errorf("the refused worker lists svc::get: %v", w.Functions)
	}
	disconnect(t, s, owner)
	other.register("svc::get")
	if f, _ := s.FunctionIn("orders", "svc::get"); f.WorkerID != other.id {
		t.Errorf("after the owner left svc::get = %+v, want the other worker's", f)
	}
}

// engine::* ids are the engine's: refused outside the default namespace,
// with no owner named.
func TestEngineIDsAreReservedOutsideDefault(t *testing.T) {
	s := newNamespacedServer(t)
	for _, tt := range []struct {
		ns     string
		reject bool
	}{{"orders", true}, {"", false}} {
		t.Run("namespace="+tt.ns, func(t *testing.T) {
			p := dialIn(t, s, tt.ns, "")
			p.send(wire.RegisterFunction{ID: "engine::custom"})
			if !tt.reject {
				p.barrier()
				if _, ok := s.Function("engine::custom"); !ok {
					t.Error("engine::custom is not registered in default")
				}
				return
			}
			want := `{"type":"registrationrejected","code":"FUNCTION_NAMESPACE_CONFLICT","namespace":"orders",` +
				`"function_id":"engine::custom","owner_worker_id":""}`
			if got := expectRaw[wire.RegistrationRejected](p); got != want {
				t.Errorf("rejection\n got %s\nwant %s", got, want)
			}
			if _, ok := s.FunctionIn("orders", "engine::custom"); ok {
				t.Error("engine::custom was registered in orders")
			}
		})
	}
}

// A second live worker with a name already leased in its namespace gets
// WORKER_NAMESPACE_CONFLICT and is closed; its held registrations are
// never applied. The same name in another namespace is fine, and the
// lease ends with the connection.
func TestWorkerNameConflictClosesTheSecond(t *testing.T) {
	s := newNamespacedServer(t)
	first := dialIn(t, s, "orders", "state")
	second := dial(t, s)
	second.send(wire.RegisterFunction{ID: "second::f"})
	second.invoke("engine::workers::register", `{"name":" state ","namespace":"orders"}`)
	want := `{"type":"registrationrejected","code":"WORKER_NAMESPACE_CONFLICT","namespace":"orders",` +
		`"worker_name":"state","owner_worker_id":"` + first.id + `"}`
	if got := expectRaw[wire.RegistrationRejected](second); got != want {
		t.Errorf("rejection\n got %s\nwant %s", got, want)
	}
	second.expectClosed() // and no {"success":false} before the close
	waitCleanedUp(t, s, second)
	if _, ok := s.FunctionIn("orders", "second::f"); ok {
		t.Error("the rejected worker's held registration was applied")
	}
	if _, ok := s.Function("second::f"); ok {
		t.Error("the rejected worker's held registration was applied in default")
	}
	dialIn(t, s, "analytics", "state")
	disconnect(t, s, first)
	dialIn(t, s, "orders", "state")
}

// Without Options.Namespaces every namespace field is ignored, as 0.22.1
// ignores unknown fields: no hold, one namespace, last writer wins,
// frames forwarded without namespaces, rows without them.
func TestNamespaceFieldsChangeNothingWithoutNamespaces(t *testing.T) {
	s := newTestServer(t)
	a, b := dial(t, s), dial(t, s)
	a.send(wire.RegisterFunction{ID: "svc::get"})
	a.barrier()
	if _, ok := s.Function("svc::get"); !ok {
		t.Fatal("a registration waited for the metadata call")
	}
	a.registerWorker(`{"name":"a","namespace":"orders","pid":1}`)
	b.registerWorker(`{"name":"a","namespace":"orders","pid":2}`) // same name: no conflict
	b.register("svc::get")                                        // last writer wins, nothing sent back
	if f, _ := s.Function("svc::get"); f.WorkerID != b.id || f.Namespace != "" {
		t.Errorf("svc::get = %+v, want b's, with no namespace", f)
	}
	b.serve(func(wire.InvokeFunction) wire.InvocationResult {
		return wire.InvocationResult{Result: json.RawMessage(`1`)}
	})
	for _, ns := range []string{"orders", " "} {
		id := uuid.NewString()
		a.send(wire.InvokeFunction{InvocationID: id, FunctionID: "svc::get", Data: json.RawMessage(`{}`), Namespace: ns})
		if res := expect[wire.InvocationResult](a); res.Error != nil || string(res.Result) != "1" {
			t.Errorf("call with namespace %q: %+v", ns, res)
		}
	}
	res := a.call("nope", `{}`)
	if res.Error == nil || res.Error.Message != "Function nope not found" {
		t.Errorf("not found: %+v", res.Error)
	}
	prov := dial(t, s)
	prov.send(wire.RegisterTriggerType{ID: "t", Description: "", Namespace: "shop"})
	prov.barrier()
	a.send(wire.RegisterTrigger{ID: "b1", TriggerType: "t", FunctionID: "svc::get", Config: json.RawMessage(`{}`),
		Namespace: "orders", TriggerNamespace: " "})
	want := wire.RegisterTrigger{ID: "b1", TriggerType: "t", FunctionID: "svc::get", Config: json.RawMessage(`{}`)}
	if diff := cmp.Diff(want, expect[wire.RegisterTrigger](prov)); diff != "" {
		t.Errorf("forwarded binding (-want +got):\n%s", diff)
	}
	for _, fn := range []string{"engine::functions::list", "engine::workers::list", "engine::triggers::list"} {
		if got := string(a.callOK(fn, `{}`)); json.Valid([]byte(got)) && containsKey(got, "namespace") {
			t.Errorf("%s rows carry a namespace: %s", fn, got)
		}
	}
	if w := s.Workers()[0]; w.Namespace != "" {
		t.Errorf("worker namespace %q, want none", w.Namespace)
	}
}

// containsKey reports whether a JSON document has key at any depth.
func containsKey(doc, key string) bool {
	var v any
	if json.Unmarshal([]byte(doc), &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x[key]; ok {
				return true
			}
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
