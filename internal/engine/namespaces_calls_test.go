package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// A call resolves strictly in its frame's namespace; a miss names it and
// lists the namespaces where the id exists (resolve_function). A void
// call still gets nothing.
func TestNotFoundNamesTheNamespaces(t *testing.T) {
	s := newNamespacedServer(t)
	for _, ns := range []string{"billing", "analytics"} {
		dialIn(t, s, ns, "").register("svc::twice")
	}
	dialIn(t, s, "orders", "").register("svc::once")
	caller := dialIn(t, s, "orders", "caller")
	for _, tt := range []struct{ fn, ns, msg string }{
		{"nope", "", "Function nope not found in namespace default."},
		{"nope", "orders", "Function nope not found in namespace orders."},
		{"svc::once", "", "Function svc::once not found in namespace default. It is registered in namespace(s): orders."},
		{"svc::twice", "orders", "Function svc::twice not found in namespace orders. It is registered in namespace(s): analytics, billing."},
		{"state::get", "orders", "Function state::get not found in namespace orders. It is registered in namespace(s): default."},
	} {
		t.Run(tt.fn+"@"+tt.ns, func(t *testing.T) {
			caller.t = t
			id := uuid.NewString()
			caller.send(wire.InvokeFunction{InvocationID: id, FunctionID: tt.fn, Data: json.RawMessage(`{}`), Namespace: tt.ns})
			want := &wire.ErrorBody{Code: "function_not_found", Message: tt.msg}
			if diff := cmp.Diff(want, expect[wire.InvocationResult](caller).Error); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			caller.send(wire.InvokeFunction{FunctionID: tt.fn, Data: json.RawMessage(`{}`), Namespace: tt.ns,
				Action: &wire.Action{Type: wire.ActionVoid}})
			caller.barrier()
		})
	}
}

// A namespace named and left blank is refused with INVALID_NAMESPACE when
// the frame has an invocation id, whatever its action; otherwise nothing
// comes back.
func TestBlankInvokeNamespaceIsRefused(t *testing.T) {
	s := newNamespacedServer(t)
	p := dialIn(t, s, "", "")
	const id = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"
	for _, tt := range []struct {
		name, frame string
		answered    bool
	}{
		{"empty", `{"type":"invokefunction","invocation_id":"` + id + `","function_id":"state::get","data":{},"namespace":""}`, true},
		{"spaces", `{"type":"invokefunction","invocation_id":"` + id + `","function_id":"state::get","data":{},"namespace":" \t"}`, true},
		{"void with an id", `{"type":"invokefunction","invocation_id":"` + id + `","function_id":"state::get","data":{},"namespace":"","action":{"type":"void"}}`, true},
		{"void", `{"type":"invokefunction","function_id":"state::get","data":{},"namespace":" ","action":{"type":"void"}}`, false},
		{"null is absent", `{"type":"invokefunction","invocation_id":"` + id + `","function_id":"nope","data":{},"namespace":null}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			p.sendRaw(1, tt.frame)
			if !tt.answered {
				p.barrier()
				return
			}
			got := expectRaw[wire.InvocationResult](p)
			want := `{"type":"invocationresult","invocation_id":"` + id + `","function_id":"state::get","error":{"code":"INVALID_NAMESPACE",` +
				"\"message\":\"`namespace` is empty: it was named and left blank. Give it a name, or omit it to use `default`.\"}}"
			if strings.Contains(tt.frame, "null") {
				want = `{"type":"invocationresult","invocation_id":"` + id + `","function_id":"nope","error":{"code":"function_not_found",` +
					`"message":"Function nope not found in namespace default."}}`
			}
			if got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}

// An enqueue names a target outside the default namespace in the queue
// worker's payload, and only then.
func TestEnqueueNamesItsNamespace(t *testing.T) {
	s := newNamespacedServer(t)
	queue := dialIn(t, s, "", "queue")
	queue.register(enqueueFunctionID)
	caller := dialIn(t, s, "", "")
	for _, ns := range []string{"orders", ""} {
		caller.send(wire.InvokeFunction{InvocationID: uuid.NewString(), FunctionID: "svc::job", Data: json.RawMessage(`{}`),
			Namespace: ns, Action: &wire.Action{Type: wire.ActionEnqueue, Queue: "q"}})
		inv := expect[wire.InvokeFunction](queue)
		var payload map[string]any
		if err := json.Unmarshal(inv.Data, &payload); err != nil {
			t.Fatal(err)
		}
		if got, has := payload["namespace"]; ns == "" && has || ns != "" && got != ns {
			t.Errorf("enqueue in %q: payload %s", ns, inv.Data)
		}
		queue.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID, Result: json.RawMessage(`{}`)})
		if res := expect[wire.InvocationResult](caller); res.Error != nil {
			t.Errorf("enqueue in %q: %+v", ns, res.Error)
		}
	}
}

// Listing rows name their namespace; engine::functions::info finds a bare
// id in default first, else in the only namespace that has it, and calls
// an id in several namespaces ambiguous; a namespace given is strict.
func TestDiscoveryNamesNamespaces(t *testing.T) {
	s := newNamespacedServer(t)
	orders, billing := dialIn(t, s, "orders", "o"), dialIn(t, s, "billing", "b")
	orders.register("svc::both")
	billing.register("svc::both")
	orders.register("svc::orders")
	orders.send(wire.RegisterTrigger{ID: "t", TriggerType: triggerState, FunctionID: "svc::orders",
		Config: json.RawMessage(`{}`), Namespace: "orders"})
	orders.barrier()
	dflt := dialIn(t, s, "", "d")
	dflt.register("svc::default")
	billing.register("svc::default")

	got := string(dflt.callOK("engine::functions::list", `{"prefix":"svc::"}`))
	want := `{"functions":[` +
		`{"function_id":"svc::both","namespace":"billing","worker_name":"b"},` +
		`{"function_id":"svc::both","namespace":"orders","worker_name":"o"},` +
		`{"function_id":"svc::default","namespace":"billing","worker_name":"b"},` +
		`{"function_id":"svc::default","namespace":"default","worker_name":"d"},` +
		`{"function_id":"svc::orders","namespace":"orders","worker_name":"o"}]}`
	if got != want {
		t.Errorf("engine::functions::list\n got %s\nwant %s", got, want)
	}
	var workers struct {
		Workers []struct{ Name, Namespace string }
	}
	if err := json.Unmarshal(dflt.callOK("engine::workers::list", `{}`), &workers); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, w := range workers.Workers {
		rows = append(rows, w.Name+"@"+w.Namespace)
	}
	if diff := cmp.Diff([]string{"b@billing", "d@default", "iii-engine-functions@default", "iii-state@default", "o@orders"}, rows); diff != "" {
		t.Errorf("engine::workers::list (-want +got):\n%s", diff)
	}

	detail := func(id, ns string) string {
		return fmt.Sprintf(`{"function_id":%q,"namespace":%q,"registered_triggers":[],"worker_name":%q}`,
			id, ns, map[string]string{"orders": "o", "billing": "b", "default": "d"}[ns])
	}
	notFound := func(msg string) outcome { return outcome{Error: &wire.ErrorBody{Code: "NOT_FOUND", Message: msg}} }
	withTrigger := `{"function_id":"svc::orders","namespace":"orders",` +
		`"registered_triggers":[{"config":{},"id":"t","trigger_type":"state"}],"worker_name":"o"}`
	for _, tt := range []struct {
		input string
		want  outcome
	}{
		{`{"function_id":"svc::default"}`, result(detail("svc::default", "default"))},
		{`{"function_id":"svc::orders","namespace":"orders"}`, result(withTrigger)},
		{`{"function_id":"svc::orders"}`, result(withTrigger)},
		{`{"function_id":"svc::both","namespace":"billing"}`, result(detail("svc::both", "billing"))},
		{`{"function_id":"svc::both"}`, notFound("Function 'svc::both' is ambiguous: it is registered in " +
			"namespace(s): billing, orders. Pass `namespace` to select one.")},
		{`{"function_id":"svc::orders","namespace":"billing"}`, notFound("Function 'svc::orders' is ambiguous: it is " +
			"registered in namespace(s): orders. Pass `namespace` to select one.")},
		{`{"function_id":"nope","namespace":"orders"}`, notFound("Function 'nope' is not registered.")},
		{`{"function_ids":["svc::both","svc::default"]}`,
			result(`{"functions":[{"error":"not_found","function_id":"svc::both"},` + detail("svc::default", "default") + `]}`)},
	} {
		t.Run(tt.input, func(t *testing.T) {
			dflt.t = t
			if diff := cmp.Diff(tt.want, callOutcome(dflt, "engine::functions::info", tt.input)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzRouteNamespaces is FuzzRoute under the 0.23 namespace rules, on a
// connection whose registrations are held until a metadata call among the
// frames: whatever a worker sends, the engine must not panic.
func FuzzRouteNamespaces(f *testing.F) {
	const id = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"
	for _, seed := range []string{
		`{"type":"registerfunction","id":"f"}`,
		`{"type":"registerfunction","id":"engine::f"}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"engine::workers::register","data":{"namespace":"orders","name":"w"}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"engine::workers::register","data":{"namespace":" "}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"f","data":{},"namespace":"orders"}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"f","data":{},"namespace":""}`,
		`{"type":"invokefunction","function_id":"f","data":{},"namespace":"a","action":{"type":"enqueue","queue":"q"}}`,
		`{"type":"registertriggertype","id":"t","description":"","namespace":"shop"}`,
		`{"type":"registertrigger","id":"b","trigger_type":"t","function_id":"f","config":{},"namespace":"a","trigger_namespace":"shop"}`,
		`{"type":"registertrigger","id":"b","trigger_type":"t","function_id":"f","config":{},"trigger_namespace":""}`,
		`{"type":"unregistertrigger","id":"b"}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"engine::functions::info","data":{"function_id":"f","namespace":"x"}}`,
	} {
		f.Add([]byte(seed))
	}
	s := newTestServerWith(f, Options{Namespaces: true, NamespaceGrace: time.Hour})
	c := newConn(s, nil, nil, "192.0.2.1:9")
	s.beginNamespace(c)
	s.mu.Lock()
	s.workers[c.id] = c
	s.mu.Unlock()
	f.Cleanup(func() {
		s.cleanup(c)
		<-c.graceDone
	})
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := wire.Decode(frame)
		if err != nil {
			return
		}
		s.routeFrame(c, m, frame)
		c.out.take()
	})
}
