package interop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// unicodeText mixes what JSON encoders treat differently: HTML characters
// (Go escapes them by default), U+2028/U+2029 (escaped by Go, raw in
// JavaScript), astral-plane characters (surrogate pairs in JavaScript),
// combining marks, right-to-left text, a NUL and other control characters.
const unicodeText = "héllo wörld · 日本語 · 🧩🚀 · e\u0301 · עברית العربية · <a href=\"x\">&amp;</a> · \u2028\u2029 · tab\tnl\n · nul\x00 · \u007f\u0085"

// bigText is a 256 KiB payload string of multi-byte text.
var bigText = func() string {
	const unit = "skills·技能·🧠·"
	var b strings.Builder
	for b.Len() < 256<<10 {
		b.WriteString(unit)
	}
	return b.String()
}()

// Payload and result shapes that must survive the trip between Go and
// Node through the engine.
func TestDataShapes(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	gw := newGoWorker(t, srv, "go-shapes")
	gw.register("go::echo", gw.echo())
	gw.register("go::nil", gw.record(nil, nil))
	gw.register("go::json-null", gw.record(json.RawMessage("null"), nil))
	gw.start(srv, "go::echo", "go::nil", "go::json-null")
	node := startPeer(t, srv, "node-shapes", peerOptions{})
	node.registerFunction("node::echo", "echo", nil)
	node.registerFunction("node::undefined", "record", nil)
	node.registerFunction("node::null", "null", nil)
	node.waitConnected(srv)
	waitFunctions(t, srv, "node::echo", "node::undefined", "node::null")
	nodeID, goID := node.workerID(srv), gw.c.WorkerID()

	t.Run("caller worker id", func(t *testing.T) {
		before := gw.callCount("go::echo")
		if r := node.call("go::echo", map[string]any{"k": "v"}, 5*time.Second); !r.OK {
			t.Fatalf("Node call failed: %+v", *r.Error)
		}
		req := gw.awaitCall("go::echo", before)
		data, caller := splitCaller(t, req.Data)
		if caller != nodeID {
			t.Errorf("Go handler saw %s = %q, want the Node caller's worker id %q", callerKey, caller, nodeID)
		}
		jsonEqual(t, "rest of the payload", data, map[string]any{"k": "v"})

		if _, err := gw.call("node::echo", map[string]any{"k": "v"}); err != nil {
			t.Fatal(err)
		}
		inv := node.awaitInvoked("node::echo")
		if _, caller := splitCaller(t, inv.Data); caller != goID {
			t.Errorf("Node handler saw %s = %q, want the Go caller's worker id %q", callerKey, caller, goID)
		}
	})

	t.Run("non-object payloads are not touched", func(t *testing.T) {
		for _, payload := range []any{"a string", float64(42), []any{"x", 1.5, true}, nil, true} {
			before := gw.callCount("go::echo")
			r := node.call("go::echo", payload, 5*time.Second)
			if !r.OK {
				t.Fatalf("Node call with payload %#v failed: %+v", payload, *r.Error)
			}
			req := gw.awaitCall("go::echo", before)
			jsonEqual(t, "payload the Go handler saw", req.Data, payload)
			if payload == nil {
				// A null result travels without a result field
				// (docs/protocol.md#invocation-results).
				if r.HasResult {
					t.Errorf("echo of null: Node got %s (%s), want undefined", r.Result, r.ResultType)
				}
				continue
			}
			jsonEqual(t, "result Node saw", r.Result, payload)
		}
	})

	t.Run("nothing comes back as undefined and nil", func(t *testing.T) {
		for _, fn := range []string{"go::nil", "go::json-null"} {
			r := node.call(fn, map[string]any{}, 5*time.Second)
			if !r.OK || r.HasResult || r.ResultType != "undefined" {
				t.Errorf("%s: Node got %+v, want a resolved undefined", fn, r)
			}
		}
		for _, fn := range []string{"node::undefined", "node::null"} {
			res, err := gw.call(fn, map[string]any{})
			if err != nil || res != nil {
				t.Errorf("%s: Go got %q, %v; want a nil result", fn, res, err)
			}
		}
	})

	t.Run("absent payload never arrives", func(t *testing.T) {
		// The Node SDK sends no data field when the payload is left out;
		// the engine drops that frame, so the caller times out
		// (docs/protocol.md#node-sdk-observations).
		before := gw.callCount("go::echo")
		r := node.call("go::echo", noPayload, 300*time.Millisecond)
		if r.OK || r.Error.Code != "TIMEOUT" {
			t.Errorf("Node call without payload: %+v, want a TIMEOUT", r)
		}
		// A later call on the same socket is handled after that frame:
		// once it is answered, it must be the only new call the Go
		// handler saw.
		if r := node.call("go::echo", map[string]any{"barrier": true}, 5*time.Second); !r.OK {
			t.Fatalf("barrier call failed: %+v", *r.Error)
		}
		if n := gw.callCount("go::echo"); n != before+1 {
			t.Errorf("the Go handler ran %d times for a frame without data", n-before-1)
		}
		jsonEqual(t, "first call after the frame without data", withoutCaller(t, gw.awaitCall("go::echo", before).Data), map[string]any{"barrier": true})
	})

	for _, tc := range []struct {
		name string
		text string
	}{{"unicode", unicodeText}, {"256 KiB", bigText}} {
		t.Run(tc.name, func(t *testing.T) {
			head := string([]rune(tc.text)[:16])
			payload := map[string]any{"text": tc.text, "list": []string{head, "b"}}
			wantBack := map[string]any{"text": tc.text, "list": []string{head, "b"}}

			before := gw.callCount("go::echo")
			r := node.call("go::echo", payload, 5*time.Second)
			if !r.OK {
				t.Fatalf("Node→Go: %+v", *r.Error)
			}
			jsonEqual(t, "Node→Go payload at Go", withoutCaller(t, gw.awaitCall("go::echo", before).Data), wantBack)
			jsonEqual(t, "Node→Go result at Node", withoutCaller(t, r.Result), wantBack)

			ctx, cancel := context.WithTimeout(context.Background(), goCallTimeout)
			defer cancel()
			res, err := gw.c.Invoke(ctx, iii.Invocation{FunctionID: "node::echo", Data: payload, Metadata: map[string]any{"m": tc.text}})
			if err != nil {
				t.Fatalf("Go→Node: %v", err)
			}
			inv := node.awaitInvoked("node::echo")
			jsonEqual(t, "Go→Node payload at Node", withoutCaller(t, inv.Data), wantBack)
			jsonEqual(t, "Go→Node metadata at Node", inv.Metadata, map[string]any{"m": tc.text})
			var got struct {
				Data     json.RawMessage `json:"data"`
				Metadata json.RawMessage `json:"metadata"`
			}
			if err := jsonUnmarshal(res, &got); err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, "Go→Node result at Go", withoutCaller(t, got.Data), wantBack)
			jsonEqual(t, "Go→Node metadata echoed", got.Metadata, map[string]any{"m": tc.text})
		})
	}
}
