package interop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// A Node worker calls a Go function synchronously and gets its result,
// metadata included; a void call reaches the Go handler and nothing comes
// back to Node.
func TestNodeCallsGo(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	tap := newFrameTap(t, srv.URL())
	gw := newGoWorkerAt(t, tap.url(), "go-callee")
	gw.register("go::echo", gw.echo())
	gw.register("go::record", gw.record(map[string]any{"ignored": true}, nil))
	gw.start(srv, "go::echo", "go::record")
	node := startPeer(t, srv, "node-caller", peerOptions{})
	node.waitConnected(srv)

	t.Run("sync", func(t *testing.T) {
		r := node.callWithMetadata("go::echo", map[string]any{"skill": "pdf", "n": 3}, map[string]any{"trace": "m1"})
		if !r.OK {
			t.Fatalf("Node call of go::echo failed: %+v", r.Error)
		}
		var echoed map[string]any
		if err := jsonUnmarshal(r.Result, &echoed); err != nil {
			t.Fatal(err)
		}
		if echoed["skill"] != "pdf" || echoed["n"] != float64(3) {
			t.Errorf("Node got %s, want the payload back", r.Result)
		}
		req := gw.awaitCall("go::echo", 0)
		jsonEqual(t, "metadata the Go handler saw", req.Metadata, map[string]any{"trace": "m1"})
		if req.InvocationID == "" {
			t.Error("the Go handler of a synchronous call got no invocation id")
		}
	})

	t.Run("void", func(t *testing.T) {
		if !node.voidCall("go::record", map[string]any{"event": "fired"}, map[string]any{"m": 2}) {
			t.Error("the Node SDK's void trigger did not resolve to undefined")
		}
		req := gw.awaitCall("go::record", 0)
		jsonEqual(t, "void payload", withoutCaller(t, req.Data), map[string]any{"event": "fired"})
		jsonEqual(t, "void metadata", req.Metadata, map[string]any{"m": 2})
		if req.InvocationID == "" {
			t.Error("the engine forwarded a void call without an invocation id (it always sends one to the callee)")
		}
		// The Go handler's answer has gone to the engine; a call Go makes
		// afterwards is handled after it, and finds nothing in flight.
		// Whatever the engine did with that answer it did by then, so it
		// reached Node before the answer to Node's next call. Node must
		// have received results for its synchronous calls only.
		tap.await("Go's answer to the void call", func(f tapFrame) bool {
			typ, id := f.message()
			return f.Up && typ == "invocationresult" && id == req.InvocationID
		})
		gw.assertIdle()
		if r := node.call("go::echo", map[string]any{"barrier": true}, 5*time.Second); !r.OK {
			t.Fatalf("barrier call failed: %+v", r.Error)
		}
		frames, _ := node.frames()
		assertResultsAnswerCalls(t, frames)
	})
}

// A Go client calls Node functions, synchronously and void.
func TestGoCallsNode(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	tap := newFrameTap(t, srv.URL())
	gw := newGoWorker(t, srv, "go-caller")
	gw.start(srv)
	node := startPeer(t, srv, "node-callee", peerOptions{url: tap.url()})
	node.registerFunction("node::echo", "echo", nil)
	node.registerFunction("node::record", "record", nil)
	node.waitConnected(srv)
	waitFunctions(t, srv, "node::echo", "node::record")

	t.Run("sync", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), goCallTimeout)
		defer cancel()
		res, err := gw.c.Invoke(ctx, iii.Invocation{FunctionID: "node::echo",
			Data: map[string]any{"q": "hello"}, Metadata: map[string]any{"from": "go"},
			Traceparent: traceparent, Baggage: baggage})
		if err != nil {
			t.Fatalf("Go call of node::echo: %v", err)
		}
		var got struct {
			Data     map[string]any `json:"data"`
			Metadata map[string]any `json:"metadata"`
		}
		if err := jsonUnmarshal(res, &got); err != nil {
			t.Fatal(err)
		}
		if got.Data["q"] != "hello" || got.Metadata["from"] != "go" {
			t.Errorf("Go got %s, want the payload and metadata back", res)
		}
		inv := node.awaitInvoked("node::echo")
		jsonEqual(t, "metadata the Node handler saw", inv.Metadata, map[string]any{"from": "go"})

		// Trace context reaches Node and comes back on its result.
		frames, _ := node.frames()
		for _, dir := range []string{"in", "out"} {
			i := slices.IndexFunc(frames, func(f wireFrame) bool {
				return f.Dir == dir && f.FunctionID == "node::echo" &&
					(f.Type == "invokefunction" || f.Type == "invocationresult")
			})
			if i < 0 {
				t.Fatalf("no %s frame for node::echo in %+v", dir, frames)
			}
			if f := frames[i]; f.Traceparent != traceparent || f.Baggage != baggage {
				t.Errorf("%s %s carried traceparent %q baggage %q, want %q %q",
					dir, f.Type, f.Traceparent, f.Baggage, traceparent, baggage)
			}
		}
	})

	t.Run("void", func(t *testing.T) {
		if err := gw.c.InvokeVoid(iii.Invocation{FunctionID: "node::record", Data: map[string]any{"n": 1}}); err != nil {
			t.Fatalf("InvokeVoid: %v", err)
		}
		inv := node.awaitInvoked("node::record")
		jsonEqual(t, "void payload at Node", withoutCaller(t, inv.Data), map[string]any{"n": 1})
		if inv.HasMetadata {
			t.Errorf("Node handler got metadata %s for a call that sent none", inv.Metadata)
		}
		// Node answers the engine's invocation id; the engine keeps that
		// result to itself.
		frames, _ := node.frames()
		var invokeID string
		for _, f := range frames {
			if f.Dir == "in" && f.Type == "invokefunction" && f.FunctionID == "node::record" {
				invokeID = f.InvocationID
			}
		}
		if invokeID == "" {
			t.Fatal("the engine's invokefunction for a void call carried no invocation_id")
		}
		// Node's answer has gone to the engine; Node's next call is
		// handled after it and finds nothing in flight.
		tap.await("Node's answer to the void call", func(f tapFrame) bool {
			typ, id := f.message()
			return f.Up && typ == "invocationresult" && id == invokeID
		})
		r := node.call("engine::workers::list", map[string]any{}, 5*time.Second)
		if !r.OK {
			t.Fatalf("Node call of engine::workers::list: %+v", *r.Error)
		}
		var list struct {
			Workers []workerRow `json:"workers"`
		}
		if err := jsonUnmarshal(r.Result, &list); err != nil {
			t.Fatal(err)
		}
		for _, w := range list.Workers {
			if w.ActiveInvocations != 0 {
				t.Errorf("worker %s has %d invocations in flight after Node answered the void call, want none", w.ID, w.ActiveInvocations)
			}
		}
	})
}

// W3C trace context sent with a call (an example from the W3C spec).
const (
	traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	baggage     = "userId=alice,skill=pdf"
)

// Error codes and messages survive both directions.
func TestErrorsKeepCodeAndMessage(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	gw := newGoWorker(t, srv, "go-errors")
	gw.register("go::not-found", gw.record(nil, &iii.Error{Code: "not_found", Message: "Skill not found: x"}))
	gw.register("go::plain-error", gw.record(nil, errors.New("disk is on fire")))
	gw.register("go::panics", func(context.Context, iii.Request) (any, error) { panic("kaboom") })
	gw.start(srv, "go::not-found", "go::plain-error", "go::panics")
	node := startPeer(t, srv, "node-errors", peerOptions{})
	node.registerFunction("node::throws", "throw", map[string]any{"message": "Skill not found: y"})
	node.registerFunction("node::throws-string", "throw_string", map[string]any{"message": "a bare string"})
	node.waitConnected(srv)
	waitFunctions(t, srv, "node::throws", "node::throws-string")

	t.Run("go handler errors seen by node", func(t *testing.T) {
		for _, tc := range []struct {
			fn, code, message string
		}{
			{"go::not-found", "not_found", "Skill not found: x"},
			{"go::plain-error", "invocation_failed", "disk is on fire"},
			{"go::panics", "invocation_failed", "handler go::panics panicked: kaboom"},
		} {
			r := node.call(tc.fn, map[string]any{}, 5*time.Second)
			if r.OK {
				t.Errorf("%s: Node got a result %s, want an error", tc.fn, r.Result)
				continue
			}
			want := nodeError{Name: "InvocationError", Code: tc.code, Message: tc.code + ": " + tc.message, FunctionID: tc.fn}
			got := *r.Error
			got.Stacktrace = ""
			if got != want {
				t.Errorf("%s: Node saw %+v, want %+v", tc.fn, got, want)
			}
		}
	})

	t.Run("node handler errors seen by go", func(t *testing.T) {
		_, err := gw.call("node::throws", map[string]any{})
		ie := asIIIError(t, err)
		if ie.Code != "invocation_failed" || ie.Message != "Skill not found: y" {
			t.Errorf("Go saw code %q message %q, want invocation_failed / %q", ie.Code, ie.Message, "Skill not found: y")
		}
		if !strings.HasPrefix(ie.Stacktrace, "Error: Skill not found: y\n") {
			t.Errorf("stacktrace %q, want the JS stack of the thrown Error", truncate(ie.Stacktrace, 200))
		}
		if got, want := ie.Error(), "invocation_failed: Skill not found: y"; got != want {
			t.Errorf("Error() = %q, want %q (the Node SDK's rendering)", got, want)
		}

		_, err = gw.call("node::throws-string", map[string]any{})
		ie = asIIIError(t, err)
		if ie.Code != "invocation_failed" || ie.Message != "a bare string" || ie.Stacktrace != "" {
			t.Errorf("Go saw %+v, want invocation_failed / %q without a stacktrace", *ie, "a bare string")
		}
	})
}

// An unknown function is function_not_found for a Node and a Go caller.
func TestUnknownFunction(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	gw := newGoWorker(t, srv, "go-unknown")
	gw.start(srv)
	node := startPeer(t, srv, "node-unknown", peerOptions{})
	node.waitConnected(srv)

	const missing = "nowhere::missing"
	r := node.call(missing, map[string]any{}, 5*time.Second)
	want := nodeError{Name: "InvocationError", Code: "function_not_found",
		Message: "function_not_found: Function nowhere::missing not found", FunctionID: missing}
	if r.OK || *r.Error != want {
		t.Errorf("Node saw %+v, want error %+v", r, want)
	}

	_, err := gw.call(missing, map[string]any{})
	ie := asIIIError(t, err)
	if ie.Code != "function_not_found" || ie.Message != "Function nowhere::missing not found" {
		t.Errorf("Go saw code %q message %q, want function_not_found / %q", ie.Code, ie.Message, "Function nowhere::missing not found")
	}
}

// assertResultsAnswerCalls checks that every invocationresult the peer
// received answers a synchronous call it made, once.
func assertResultsAnswerCalls(t *testing.T, frames []wireFrame) {
	t.Helper()
	calls := map[string]bool{}
	for _, f := range frames {
		if f.Dir == "out" && f.Type == "invokefunction" && f.InvocationID != "" {
			calls[f.InvocationID] = true
		}
	}
	answered := map[string]int{}
	for _, f := range frames {
		if f.Dir != "in" || f.Type != "invocationresult" {
			continue
		}
		if !calls[f.InvocationID] {
			t.Errorf("Node received an invocationresult for %q (function %s) it never asked for", f.InvocationID, f.FunctionID)
		}
		answered[f.InvocationID]++
	}
	for id := range calls {
		if answered[id] != 1 {
			t.Errorf("call %s was answered %d times, want 1", id, answered[id])
		}
	}
}
