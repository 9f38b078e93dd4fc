package iii

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// namespaceScenario drives c through every frame a namespace can touch:
// the handshake (metadata call, trigger type, function, two bindings, one
// naming "default"), two bindings the engine forwards to the provider
// (one in no namespace, one in "elsewhere"), a synchronous call, void
// calls (implicit, explicit, engine::*, engine::* named), and a fire of
// the provided type. It returns once the fire's frames were received.
func namespaceScenario(t *testing.T, p *peer, c *Client) {
	t.Helper()
	prov := c.ProvideTriggerType(TriggerType{ID: "demo::on-change", Description: "changes"})
	c.RegisterFunction(Function{ID: "demo::fn", Handler: nopHandler})
	c.RegisterTrigger(Trigger{ID: "t1", Type: "state", FunctionID: "demo::fn", Config: map[string]string{"scope": "s"}})
	c.RegisterTrigger(Trigger{ID: "t2", Type: "cron", FunctionID: "engine::workers::list", Namespace: "default"})
	startReady(t, c)
	p.waitFrame("the handshake's last binding", func(r received) bool {
		m, ok := r.msg.(wire.RegisterTrigger)
		return ok && m.ID == "t2"
	})
	pc := p.waitConn(1)
	pc.send(wire.RegisterTrigger{ID: "s1", TriggerType: "demo::on-change", FunctionID: "sub::default", Config: json.RawMessage(`{}`)})
	pc.send(wire.RegisterTrigger{ID: "s2", TriggerType: "demo::on-change", FunctionID: "sub::elsewhere", Config: json.RawMessage(`{}`),
		Namespace: "elsewhere"})
	roundTrip(t, p, pc)

	if got, err := c.Call(context.Background(), "echo", map[string]int{"n": 1}); err != nil || string(got) != `{"n":1}` {
		t.Fatalf("Call echo = %s, %v", got, err)
	}
	for _, inv := range []Invocation{
		{FunctionID: "demo::other"},
		{FunctionID: "demo::other", Namespace: "elsewhere"},
		{FunctionID: "demo::other", Namespace: "default"},
		{FunctionID: "engine::functions::list"},
		{FunctionID: "engine::functions::list", Namespace: "elsewhere"},
	} {
		if err := c.InvokeVoid(inv); err != nil {
			t.Fatalf("InvokeVoid %+v: %v", inv, err)
		}
	}
	if n := prov.Fire(context.Background(), map[string]string{"op": "register"}); n != 2 {
		t.Fatalf("Fire sent %d invokes, want 2", n)
	}
	p.waitFrame("the fire", func(r received) bool {
		m, ok := r.msg.(wire.InvokeFunction)
		return ok && m.FunctionID == "sub::elsewhere"
	})
}

// A worker in the default namespace, however it is spelt, sends the very
// bytes of a worker that names none (0.22's wire): no namespace field but
// those its calls and bindings name themselves.
func TestDefaultNamespaceFramesAreUnchanged(t *testing.T) {
	run := func(ns string) string {
		p := callPeer(t)
		c, _ := newClient(t, p, func(o *Options) { o.Namespace = ns })
		namespaceScenario(t, p, c)
		c.Close()
		p.waitEnded(p.waitConn(1))
		return string(transcript(p, ""))
	}
	none := run("")
	if diff := cmp.Diff(strings.Split(none, "\n"), strings.Split(run(DefaultNamespace), "\n")); diff != "" {
		t.Errorf(`frames with Namespace "default" differ from those with none (-none +default):\n%s`, diff)
	}
	_, sent, _ := strings.Cut(none, "-- conn1/worker --")
	if got := strings.Count(sent, `"namespace"`); got != 5 {
		t.Errorf("a worker in the default namespace sent %d namespace fields, want the 5 its calls and bindings named:\n%s", got, none)
	}
}

// A worker in a namespace declares it in the metadata call; its calls
// and bindings go to that namespace unless they name one, engine::*
// calls to the default namespace, and a fire to a binding the engine
// forwarded without a namespace names "default" (Node iii-sdk 0.23's
// rules, namespace.go).
func TestNamespacedWorkerFrames(t *testing.T) {
	p := callPeer(t)
	c, _ := newClient(t, p, func(o *Options) { o.Namespace = "orders" })
	if got := c.Namespace(); got != "orders" {
		t.Errorf("Namespace() = %q, want orders", got)
	}
	namespaceScenario(t, p, c)

	invoke := func(fn, ns, data string) wire.InvokeFunction {
		return wire.InvokeFunction{FunctionID: fn, Data: json.RawMessage(data), Action: &wire.Action{Type: wire.ActionVoid}, Namespace: ns}
	}
	metadata := invoke("engine::workers::register", "default", fmt.Sprintf(
		`{"name":"test-worker","runtime":"go","version":"1.2.3","os":"%s %s","pid":%d,"description":"a worker under test","namespace":"orders"}`,
		runtime.GOOS, runtime.GOARCH, os.Getpid()))
	fired := `{"op":"register"}`
	want := []wire.Message{
		metadata,
		wire.RegisterTriggerType{ID: "demo::on-change", Description: "changes"},
		wire.RegisterFunction{ID: "demo::fn"},
		wire.RegisterTrigger{ID: "t1", TriggerType: "state", FunctionID: "demo::fn", Config: json.RawMessage(`{"scope":"s"}`), Namespace: "orders"},
		wire.RegisterTrigger{ID: "t2", TriggerType: "cron", FunctionID: "engine::workers::list", Config: json.RawMessage(`{}`), Namespace: "default"},
		wire.TriggerRegistrationResult{ID: "s1", TriggerType: "demo::on-change", FunctionID: "sub::default"},
		wire.TriggerRegistrationResult{ID: "s2", TriggerType: "demo::on-change", FunctionID: "sub::elsewhere"},
		wire.Pong{},
		wire.InvokeFunction{FunctionID: "echo", Data: json.RawMessage(`{"n":1}`), Namespace: "orders"},
		invoke("demo::other", "orders", `{}`),
		invoke("demo::other", "elsewhere", `{}`),
		invoke("demo::other", "default", `{}`),
		invoke("engine::functions::list", "default", `{}`),
		invoke("engine::functions::list", "elsewhere", `{}`),
		invoke("sub::default", "default", fired),
		invoke("sub::elsewhere", "elsewhere", fired),
	}
	got := p.framesOn(1)
	for i, m := range got {
		if inv, ok := m.(wire.InvokeFunction); ok && inv.FunctionID == "echo" {
			inv.InvocationID = "" // a fresh UUID
			got[i] = inv
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames of a worker in namespace orders (-want +got):\n%s", diff)
	}
}

// A namespace named and left blank is refused where it is named, never
// read as "absent" (which would move the call or the worker elsewhere).
func TestBlankNamespaceIsRefused(t *testing.T) {
	p := callPeer(t)
	c, _ := newClient(t, p, func(o *Options) { o.Namespace = "orders" })
	startReady(t, c)
	err := c.InvokeVoid(Invocation{FunctionID: "demo::f", Namespace: " "})
	if err == nil || !strings.Contains(err.Error(), `invoke demo::f: the namespace " " is blank`) {
		t.Errorf("InvokeVoid with a blank namespace = %v, want it refused, naming the function and the value", err)
	}
	_, err = c.Invoke(context.Background(), Invocation{FunctionID: "echo", Namespace: "\t"})
	if err == nil || !strings.Contains(err.Error(), `the namespace "\t" is blank`) {
		t.Errorf("Invoke with a blank namespace = %v, want it refused", err)
	}

	panics := func(what string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(fmt.Sprint(r), "is blank") {
				t.Errorf("%s: recovered %v, want a panic saying the namespace is blank", what, r)
			}
		}()
		f()
	}
	panics("RegisterTrigger", func() {
		c.RegisterTrigger(Trigger{ID: "t", Type: "state", FunctionID: "demo::f", Namespace: "  "})
	})
	panics("New", func() { New(Options{URL: p.url(), Namespace: " "}) })
}

// A worker outside the default namespace sends the calls of a routed
// prefix to the routed namespace, the longest prefix winning; a call that
// names a namespace, and engine::* calls, are not routed; routing to the
// worker's own namespace or to "" undoes it; a worker in the default
// namespace names nothing whatever the routes (0.22's bytes).
func TestRouteNamespace(t *testing.T) {
	c := New(Options{URL: "ws://127.0.0.1:1", Namespace: "shop"})
	defer c.Close()
	c.RouteNamespace("state::", DefaultNamespace)
	c.RouteNamespace("state::list", "archive")
	for _, tc := range []struct{ explicit, fn, want string }{
		{"", "state::get", DefaultNamespace},
		{"", "state::list_entries", "archive"},
		{"", "skills::list", "shop"},
		{"elsewhere", "state::get", "elsewhere"},
		{"", "engine::triggers::list", DefaultNamespace},
	} {
		if got := c.callNamespace(tc.explicit, tc.fn); got != tc.want {
			t.Errorf("callNamespace(%q, %q) = %q, want %q", tc.explicit, tc.fn, got, tc.want)
		}
	}
	c.RouteNamespace("state::", "shop")
	c.RouteNamespace("state::list", "")
	if got := c.callNamespace("", "state::list"); got != "shop" {
		t.Errorf("after undoing the routes, state::list goes to %q, want the worker's namespace", got)
	}

	d := New(Options{URL: "ws://127.0.0.1:1"})
	defer d.Close()
	d.RouteNamespace("state::", DefaultNamespace)
	if got := d.callNamespace("", "state::get"); got != "" {
		t.Errorf("a default-namespace worker's routed call names %q, want no namespace field", got)
	}
}
