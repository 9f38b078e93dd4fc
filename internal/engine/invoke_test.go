package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

func TestSyncCallIsRoutedByInvocationID(t *testing.T) {
	tests := []struct {
		name  string
		reply wire.InvocationResult // as sent by the callee
		want  wire.InvocationResult // as received by the caller
	}{
		{"value", wire.InvocationResult{Result: []byte(`{"b":2, "a":[1, {"z":0,"y":1}]}`)},
			wire.InvocationResult{Result: []byte(`{"a":[1,{"y":1,"z":0}],"b":2}`)}},
		{"null result is forwarded without a result field", wire.InvocationResult{Result: []byte(`null`)},
			wire.InvocationResult{}},
		{"no result", wire.InvocationResult{}, wire.InvocationResult{}},
		{"error with stacktrace", wire.InvocationResult{Error: &wire.ErrorBody{Code: "not_found", Message: "Skill not found: x", Stacktrace: "at x"}},
			wire.InvocationResult{Error: &wire.ErrorBody{Code: "not_found", Message: "Skill not found: x", Stacktrace: "at x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			callee, caller := dial(t, s), dial(t, s)
			callee.register("svc::echo")
			id := uuid.NewString()
			caller.send(wire.InvokeFunction{InvocationID: id, FunctionID: "svc::echo", Data: []byte(`{"q": "x"}`),
				Metadata: []byte(`{"m":1}`), Traceparent: "00-trace-01", Baggage: "k=v"})

			got := expect[wire.InvokeFunction](callee)
			want := wire.InvokeFunction{InvocationID: id, FunctionID: "svc::echo",
				Data:     []byte(`{"_caller_worker_id":"` + caller.id + `","q":"x"}`),
				Metadata: []byte(`{"m":1}`), Traceparent: "00-trace-01", Baggage: "k=v"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("callee got (-want +got):\n%s", diff)
			}

			reply := tt.reply
			reply.InvocationID, reply.FunctionID = id, "callee::says::something::else"
			callee.send(reply)
			res := expect[wire.InvocationResult](caller)
			wantRes := tt.want
			wantRes.InvocationID, wantRes.FunctionID = id, "svc::echo"
			wantRes.Traceparent, wantRes.Baggage = "00-trace-01", "k=v"
			if diff := cmp.Diff(wantRes, res); diff != "" {
				t.Errorf("caller got (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUppercaseInvocationIDComesBackNormalised(t *testing.T) {
	s := newTestServer(t)
	callee, caller := dial(t, s), dial(t, s)
	callee.register("svc::f")
	id := uuid.NewString()
	caller.send(wire.InvokeFunction{InvocationID: strings.ToUpper(id), FunctionID: "svc::f", Data: []byte(`1`)})
	if got := expect[wire.InvokeFunction](callee); got.InvocationID != id {
		t.Fatalf("callee invocation id %s, want %s", got.InvocationID, id)
	}
	callee.send(wire.InvocationResult{InvocationID: strings.ToUpper(id), FunctionID: "svc::f", Result: []byte(`2`)})
	if got := expect[wire.InvocationResult](caller); got.InvocationID != id || string(got.Result) != "2" {
		t.Errorf("caller got %+v", got)
	}
}

func TestUnknownFunction(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	res := p.call("nope::missing", `{}`)
	want := &wire.ErrorBody{Code: "function_not_found", Message: "Function nope::missing not found"}
	if diff := cmp.Diff(want, res.Error); diff != "" || res.Result != nil || res.FunctionID != "nope::missing" {
		t.Errorf("result %+v; error (-want +got):\n%s", res, diff)
	}
	// Void calls never get an answer, not even function_not_found.
	p.send(wire.InvokeFunction{InvocationID: uuid.NewString(), FunctionID: "nope::missing", Data: []byte(`{}`),
		Action: &wire.Action{Type: wire.ActionVoid}})
	p.send(wire.InvokeFunction{FunctionID: "nope::missing", Data: []byte(`{}`)})
	p.barrier()
}

func TestVoidCallGetsFreshIDAndNoReply(t *testing.T) {
	s := newTestServer(t)
	callee, caller := dial(t, s), dial(t, s)
	callee.register("svc::fire")
	callerID := uuid.NewString()
	caller.send(wire.InvokeFunction{InvocationID: callerID, FunctionID: "svc::fire", Data: []byte(`{"n":1}`),
		Action: &wire.Action{Type: wire.ActionVoid}})
	got := expect[wire.InvokeFunction](callee)
	if _, err := uuid.Parse(got.InvocationID); err != nil || got.InvocationID == callerID {
		t.Fatalf("void dispatch id %q: want a fresh UUID, not the caller's %s", got.InvocationID, callerID)
	}
	if string(got.Data) != `{"_caller_worker_id":"`+caller.id+`","n":1}` || got.Action != nil {
		t.Errorf("void dispatch = %+v", got)
	}
	callee.send(wire.InvocationResult{InvocationID: got.InvocationID, FunctionID: "svc::fire", Result: []byte(`1`)})
	callee.barrier()
	caller.barrier() // the discarded result never reaches the caller
}

func TestCallerIDIsInjectedOnlyIntoObjectPayloads(t *testing.T) {
	s := newTestServer(t)
	callee, caller := dial(t, s), dial(t, s)
	callee.register("svc::f")
	tests := []struct{ data, want string }{
		{`{}`, `{"_caller_worker_id":"` + caller.id + `"}`},
		{`{"_caller_worker_id":"forged","z":1}`, `{"_caller_worker_id":"` + caller.id + `","z":1}`},
		{`[1, {"b":1,"a":2}]`, `[1,{"a":2,"b":1}]`},
		{`"text"`, `"text"`},
		{`null`, `null`},
		{`42`, `42`},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			for _, action := range []*wire.Action{nil, {Type: wire.ActionVoid}} {
				caller.send(wire.InvokeFunction{InvocationID: uuid.NewString(), FunctionID: "svc::f",
					Data: json.RawMessage(tt.data), Action: action})
				got := expect[wire.InvokeFunction](callee)
				if string(got.Data) != tt.want {
					t.Errorf("action %v: callee data %s, want %s", action, got.Data, tt.want)
				}
				callee.send(wire.InvocationResult{InvocationID: got.InvocationID, FunctionID: "svc::f"})
				if action == nil {
					expect[wire.InvocationResult](caller)
				}
			}
		})
	}
}

func TestEngineOriginatedCallsAreNotInjected(t *testing.T) {
	s := newTestServer(t)
	watcher := dial(t, s)
	watcher.register("watch::workers")
	watcher.send(wire.RegisterTrigger{ID: "w1", TriggerType: "engine::workers-available",
		FunctionID: "watch::workers", Config: []byte(`{}`), Metadata: []byte(`{"from":"binding"}`)})
	watcher.barrier()

	other := dial(t, s)
	got := expect[wire.InvokeFunction](watcher)
	want := wire.InvokeFunction{InvocationID: got.InvocationID, FunctionID: "watch::workers",
		Data: []byte(`{"event":"worker_connected","worker_id":"` + other.id + `"}`), Metadata: []byte(`{"from":"binding"}`)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("engine-originated call (-want +got):\n%s", diff)
	}
	watcher.send(wire.InvocationResult{InvocationID: got.InvocationID, FunctionID: "watch::workers"})

	other.registerWorker(`{"name":"other"}`)
	if got := expect[wire.InvokeFunction](watcher); string(got.Data) != `{"event":"worker_metadata_updated","worker_id":"`+other.id+`"}` {
		t.Errorf("metadata event data = %s", got.Data)
	}
	other.close()
	if got := expect[wire.InvokeFunction](watcher); string(got.Data) != `{"event":"worker_disconnected","worker_id":"`+other.id+`"}` {
		t.Errorf("disconnect event data = %s", got.Data)
	}
}

func TestDuplicateFunctionIDLastWriterWins(t *testing.T) {
	s := newTestServer(t)
	first, second, caller := dial(t, s), dial(t, s), dial(t, s)
	first.register("dup::f")
	second.register("dup::f")
	caller.invoke("dup::f", `{}`)
	expect[wire.InvokeFunction](second)
	first.barrier() // the first owner got nothing

	first.send(wire.UnregisterFunction{ID: "dup::f"}) // not the owner: ignored
	disconnect(t, s, first)
	if f, ok := s.Function("dup::f"); !ok || f.WorkerID != second.id {
		t.Fatalf("dup::f = %+v, %v; want it still owned by %s", f, ok, second.id)
	}
	second.send(wire.UnregisterFunction{ID: "dup::f"})
	second.barrier()
	if _, ok := s.Function("dup::f"); ok {
		t.Error("the owner's unregisterfunction did not remove dup::f")
	}
}

func TestDisconnectStopsInvocations(t *testing.T) {
	s := newTestServer(t)
	callee, caller := dial(t, s), dial(t, s)
	callee.register("svc::slow")
	id := caller.invoke("svc::slow", `{}`)
	expect[wire.InvokeFunction](callee)
	callee.close()
	res := expect[wire.InvocationResult](caller)
	want := wire.InvocationResult{InvocationID: id, FunctionID: "svc::slow",
		Error: &wire.ErrorBody{Code: "invocation_stopped", Message: "Invocation stopped"}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("caller got (-want +got):\n%s", diff)
	}
	if _, ok := s.Function("svc::slow"); ok {
		t.Error("the callee's function survived its disconnect")
	}
}

func TestCallerDisconnectDiscardsTheResult(t *testing.T) {
	s := newTestServer(t)
	callee, caller := dial(t, s), dial(t, s)
	callee.register("svc::f")
	caller.invoke("svc::f", `{}`)
	inv := expect[wire.InvokeFunction](callee)
	caller.close()
	callee.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: "svc::f", Result: []byte(`1`)})
	callee.barrier()
	again := dial(t, s)
	again.invoke("svc::f", `{}`)
	inv = expect[wire.InvokeFunction](callee)
	callee.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: "svc::f", Result: []byte(`2`)})
	if got := expect[wire.InvocationResult](again); string(got.Result) != "2" {
		t.Errorf("result = %+v", got)
	}
}

func TestResultsAreRoutedByIDWhoeverSendsThem(t *testing.T) {
	s := newTestServer(t)
	callee, caller, stranger := dial(t, s), dial(t, s), dial(t, s)
	callee.register("svc::f")
	id := caller.invoke("svc::f", `{}`)
	expect[wire.InvokeFunction](callee)
	stranger.send(wire.InvocationResult{InvocationID: id, FunctionID: "other", Result: []byte(`"from stranger"`)})
	if got := expect[wire.InvocationResult](caller); string(got.Result) != `"from stranger"` || got.FunctionID != "svc::f" {
		t.Errorf("caller got %+v", got)
	}
	// The callee's late answer is now for an unknown id and is discarded.
	callee.send(wire.InvocationResult{InvocationID: id, FunctionID: "svc::f", Result: []byte(`1`)})
	callee.barrier()
	caller.barrier()
}

func TestEnqueue(t *testing.T) {
	s := newTestServer(t)
	caller := dial(t, s)
	enqueue := &wire.Action{Type: wire.ActionEnqueue, Queue: "jobs"}

	id := uuid.NewString()
	caller.send(wire.InvokeFunction{InvocationID: id, FunctionID: "svc::job", Data: []byte(`{}`), Action: enqueue})
	res := expect[wire.InvocationResult](caller)
	if res.Error == nil || res.Error.Code != "enqueue_error" || !strings.Contains(res.Error.Message, "iii worker add queue") {
		t.Fatalf("enqueue without a queue worker = %+v", res)
	}
	caller.send(wire.InvokeFunction{FunctionID: "svc::job", Data: []byte(`{}`), Action: enqueue})
	caller.barrier() // without an invocation id there is no answer

	queue := dial(t, s)
	queue.register("engine::queue::enqueue")
	id = uuid.NewString()
	caller.send(wire.InvokeFunction{InvocationID: id, FunctionID: "svc::job", Data: []byte(`{"n":1}`), Action: enqueue})
	got := expect[wire.InvokeFunction](queue)
	var payload map[string]any
	if err := json.Unmarshal(got.Data, &payload); err != nil {
		t.Fatal(err)
	}
	receipt, _ := payload["messageReceiptId"].(string)
	want := map[string]any{"queue": "jobs", "function_id": "svc::job", "data": map[string]any{"n": 1.0},
		"messageReceiptId": receipt, "traceparent": nil, "baggage": nil}
	if diff := cmp.Diff(want, payload); diff != "" || receipt == "" {
		t.Fatalf("queue worker payload (-want +got):\n%s", diff)
	}
	queue.send(wire.InvocationResult{InvocationID: got.InvocationID, FunctionID: got.FunctionID, Result: []byte(`{}`)})
	res = expect[wire.InvocationResult](caller)
	if string(res.Result) != fmt.Sprintf(`{"messageReceiptId":%q}`, receipt) || res.InvocationID != id {
		t.Errorf("enqueue result = %+v, want receipt %s", res, receipt)
	}
}

func TestConcurrentCallsAreRoutedToTheirCallers(t *testing.T) {
	s := newTestServer(t)
	callee := dial(t, s)
	callee.register("svc::double")
	callee.serve(func(inv wire.InvokeFunction) wire.InvocationResult {
		var in struct{ N int }
		_ = json.Unmarshal(inv.Data, &in)
		return wire.InvocationResult{Result: []byte(fmt.Sprint(in.N * 2))}
	})
	var wg sync.WaitGroup
	for c := range 4 {
		caller := dial(t, s)
		wg.Go(func() {
			want := map[string]string{}
			for i := range 50 {
				id, n := uuid.NewString(), c*1000+i
				want[id] = fmt.Sprint(2 * n)
				err := caller.trySend(wire.InvokeFunction{InvocationID: id, FunctionID: "svc::double",
					Data: []byte(fmt.Sprintf(`{"n":%d}`, n))})
				if err != nil {
					t.Error(err)
					return
				}
			}
			for range 50 {
				m, err := caller.recv()
				if err != nil {
					t.Error(err)
					return
				}
				res, ok := m.(wire.InvocationResult)
				if !ok || want[res.InvocationID] != string(res.Result) {
					t.Errorf("caller %d got %+v", c, m)
				}
				delete(want, res.InvocationID)
			}
		})
	}
	wg.Wait()
}
