package iii

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// callPeer returns a peer scripted with answerCalls.
func callPeer(t *testing.T) *peer {
	p := newPeer(t)
	p.setScript(answerCalls)
	return p
}

// answerCalls answers the client's calls by function id: echo returns the
// data, fail returns a remote error, nothing returns no result, null an
// explicit null, and anything else is never answered.
func answerCalls(pc *peerConn, m wire.Message) {
	inv, ok := m.(wire.InvokeFunction)
	if !ok || inv.InvocationID == "" {
		return
	}
	res := wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID}
	switch inv.FunctionID {
	case "echo":
		res.Result = inv.Data
	case "fail":
		res.Error = &wire.ErrorBody{Code: "not_found", Message: "Skill not found: x", Stacktrace: "at x"}
	case "nothing":
	case "null":
		pc.sendRaw(websocket.TextMessage, []byte(`{"type":"invocationresult","invocation_id":"`+inv.InvocationID+`","function_id":"null","result":null}`))
		return
	default:
		return
	}
	pc.send(res)
}

// sentInvoke returns the invokefunction the client sent for fn.
func sentInvoke(p *peer, fn string) wire.InvokeFunction {
	return p.waitFrame("invoke "+fn, func(r received) bool {
		m, ok := r.msg.(wire.InvokeFunction)
		return ok && m.FunctionID == fn
	}).msg.(wire.InvokeFunction)
}

func TestCallResults(t *testing.T) {
	p := callPeer(t)
	c, _ := newClient(t, p)
	startReady(t, c)
	tests := []struct {
		name     string
		inv      Invocation
		wantData string // as the engine receives it
		want     json.RawMessage
		wantErr  error
	}{
		{name: "nil data is sent as {}", inv: Invocation{FunctionID: "echo"}, wantData: `{}`, want: json.RawMessage(`{}`)},
		{name: "raw data is sent verbatim", inv: Invocation{FunctionID: "echo", Data: json.RawMessage(`[1,{"a":"b"}]`)},
			wantData: `[1,{"a":"b"}]`, want: json.RawMessage(`[1,{"a":"b"}]`)},
		{name: "values are encoded without HTML escaping", inv: Invocation{FunctionID: "echo", Data: map[string]string{"q": "<a&b>"}},
			wantData: `{"q":"<a&b>"}`, want: json.RawMessage(`{"q":"<a&b>"}`)},
		{name: "no result field is nil", inv: Invocation{FunctionID: "nothing"}, wantData: `{}`},
		{name: "null result is nil", inv: Invocation{FunctionID: "null"}, wantData: `{}`},
		{name: "remote error keeps code and message", inv: Invocation{FunctionID: "fail"}, wantData: `{}`,
			wantErr: &Error{Code: "not_found", Message: "Skill not found: x", Stacktrace: "at x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Invoke(context.Background(), tt.inv)
			if diff := cmp.Diff(tt.wantErr, err); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
	for _, r := range p.framesOn(1) {
		inv, ok := r.(wire.InvokeFunction)
		if !ok || inv.FunctionID == RegisterWorkerFunction {
			continue
		}
		if _, err := uuid.Parse(inv.InvocationID); err != nil || inv.Action != nil {
			t.Errorf("sync call sent invocation_id %q, action %v; want a UUID and no action", inv.InvocationID, inv.Action)
		}
	}
}

func TestCallFrameFields(t *testing.T) {
	p := callPeer(t)
	c, _ := newClient(t, p)
	startReady(t, c)
	_, err := c.Invoke(context.Background(), Invocation{FunctionID: "echo", Data: 7, Metadata: map[string]bool{"m": true},
		Traceparent: "00-abc-01", Baggage: "k=v", Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	got := sentInvoke(p, "echo")
	want := wire.InvokeFunction{InvocationID: got.InvocationID, FunctionID: "echo", Data: json.RawMessage(`7`),
		Metadata: json.RawMessage(`{"m":true}`), Traceparent: "00-abc-01", Baggage: "k=v", Namespace: "ns"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frame (-want +got):\n%s", diff)
	}
}

func TestInvokeVoid(t *testing.T) {
	p := callPeer(t)
	c, _ := newClient(t, p)
	startReady(t, c)
	if err := c.InvokeVoid(Invocation{FunctionID: "echo", Data: map[string]string{"op": "register"},
		Metadata: json.RawMessage(`{"b":1}`)}); err != nil {
		t.Fatal(err)
	}
	want := wire.InvokeFunction{FunctionID: "echo", Data: json.RawMessage(`{"op":"register"}`),
		Metadata: json.RawMessage(`{"b":1}`), Action: &wire.Action{Type: wire.ActionVoid}}
	if diff := cmp.Diff(want, sentInvoke(p, "echo")); diff != "" {
		t.Errorf("void frame (-want +got):\n%s", diff)
	}
}

// TestCallFailures: which bound ends a call, and when. Each case runs on
// a fake clock against an in-memory engine, with a CallTimeout of 100 ms.
func TestCallFailures(t *testing.T) {
	// run runs f in a bubble with a ready client; f's call must end
	// exactly after took.
	run := func(t *testing.T, took time.Duration, f func(t *testing.T, p *peer, c *Client, logs *testLogs)) {
		synctest.Test(t, func(t *testing.T) {
			p := newPipePeer(t)
			p.setScript(answerCalls)
			c, logs := pipeClient(t, p, func(o *Options) { o.CallTimeout = 100 * time.Millisecond })
			startReady(t, c)
			start := time.Now()
			f(t, p, c, logs)
			if got := time.Since(start); got != took {
				t.Errorf("the call ended after %v, want %v", got, took)
			}
		})
	}
	t.Run("Invocation.Timeout wins over CallTimeout", func(t *testing.T) {
		run(t, 20*time.Millisecond, func(t *testing.T, _ *peer, c *Client, _ *testLogs) {
			_, err := c.Invoke(context.Background(), Invocation{FunctionID: "silent", Timeout: 20 * time.Millisecond})
			if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "after 20ms") {
				t.Errorf("err = %v, want ErrTimeout after 20ms", err)
			}
		})
	})
	t.Run("ctx deadline wins over CallTimeout", func(t *testing.T) {
		run(t, 150*time.Millisecond, func(t *testing.T, _ *peer, c *Client, _ *testLogs) {
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			defer cancel()
			_, err := c.Call(ctx, "silent", nil)
			if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want ErrTimeout from the ctx deadline, not CallTimeout", err)
			}
		})
	})
	t.Run("CallTimeout", func(t *testing.T) {
		run(t, 100*time.Millisecond, func(t *testing.T, _ *peer, c *Client, _ *testLogs) {
			_, err := c.Call(context.Background(), "silent", nil)
			if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "after 100ms") {
				t.Errorf("err = %v, want ErrTimeout after 100ms", err)
			}
		})
	})
	t.Run("ctx cancel", func(t *testing.T) {
		run(t, 0, func(t *testing.T, p *peer, c *Client, _ *testLogs) {
			ctx, cancel := context.WithCancel(context.Background())
			p.setScript(func(*peerConn, wire.Message) { cancel() })
			_, err := c.Call(ctx, "silent", nil)
			if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
				t.Errorf("err = %v, want context.Canceled only", err)
			}
		})
	})
	t.Run("late result is dropped", func(t *testing.T) {
		run(t, 10*time.Millisecond, func(t *testing.T, p *peer, c *Client, logs *testLogs) {
			_, err := c.Invoke(context.Background(), Invocation{FunctionID: "late", Timeout: 10 * time.Millisecond})
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			inv := sentInvoke(p, "late")
			p.waitConn(1).send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: "late", Result: json.RawMessage(`1`)})
			entry := waitLog(t, logs, "ignored result for unknown invocation")
			if got := entry.ContextMap()["invocation_id"]; got != inv.InvocationID {
				t.Errorf("logged invocation_id %v, want %s", got, inv.InvocationID)
			}
			if got, err := c.Call(context.Background(), "echo", json.RawMessage(`"still"`)); err != nil || string(got) != `"still"` {
				t.Errorf("later call = %s, %v", got, err)
			}
		})
	})
}

// TestCallWhileDisconnected: calls fail at once with ErrNotConnected
// before Start, when the connection drops mid-call and after it; on a
// fake clock, so "at once" is exact: no time passes.
func TestCallWhileDisconnected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPipePeer(t)
		p.setScript(answerCalls)
		c, _ := pipeClient(t, p, func(o *Options) { o.ReconnectInitial, o.ReconnectMax = time.Hour, time.Hour })

		start := time.Now()
		if _, err := c.Call(context.Background(), "echo", nil); !errors.Is(err, ErrNotConnected) {
			t.Errorf("before Start: err = %v, want ErrNotConnected", err)
		}
		if err := c.InvokeVoid(Invocation{FunctionID: "echo"}); !errors.Is(err, ErrNotConnected) {
			t.Errorf("void before Start: err = %v, want ErrNotConnected", err)
		}

		startReady(t, c)
		done := make(chan error, 1)
		go func() {
			_, err := c.Call(context.Background(), "silent", nil)
			done <- err
		}()
		sentInvoke(p, "silent")
		p.dropAll()
		if err := <-done; !errors.Is(err, ErrNotConnected) {
			t.Errorf("connection lost mid-call: err = %v, want ErrNotConnected", err)
		}
		waitState(t, c, "WorkerID cleared", func() bool { return c.WorkerID() == "" })
		if _, err := c.Call(context.Background(), "echo", nil); !errors.Is(err, ErrNotConnected) {
			t.Errorf("after drop: err = %v, want ErrNotConnected", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("failures took %v on the fake clock; they must not wait for anything", d)
		}

		c.Close()
		if _, err := c.Call(context.Background(), "echo", nil); !errors.Is(err, ErrClosed) {
			t.Errorf("after Close: err = %v, want ErrClosed", err)
		}
	})
}

func TestInvokeBadInput(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	tests := []struct {
		name string
		inv  Invocation
	}{
		{name: "no function id", inv: Invocation{}},
		{name: "invalid raw data", inv: Invocation{FunctionID: "f", Data: json.RawMessage(`{`)}},
		{name: "unencodable metadata", inv: Invocation{FunctionID: "f", Metadata: make(chan int)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Invoke(context.Background(), tt.inv); err == nil || errors.Is(err, ErrNotConnected) {
				t.Errorf("Invoke err = %v, want an encoding error", err)
			}
			if err := c.InvokeVoid(tt.inv); err == nil || errors.Is(err, ErrNotConnected) {
				t.Errorf("InvokeVoid err = %v, want an encoding error", err)
			}
		})
	}
}

// TestCallPayloadWithInvalidUTF8IsNotSent (docs/protocol.md#frames): a WebSocket text
// message must be valid UTF-8, and an engine fails the whole connection
// on one that is not (see TestHandlerResultWithInvalidUTF8IsNotSent). A
// json.RawMessage call payload holding such bytes once went out verbatim;
// it must be refused, or at least never reach the wire as it is.
func TestCallPayloadWithInvalidUTF8IsNotSent(t *testing.T) {
	bad := json.RawMessage("\"caf\xe9\"") // Latin-1 é, e.g. a file read from disk
	p := newPeer(t)
	c, _ := newClient(t, p)
	startReady(t, c)
	err := c.InvokeVoid(Invocation{FunctionID: "x::y", Data: bad})
	if err != nil {
		return // refusing the payload is fine
	}
	inv := sentInvoke(p, "x::y")
	if !utf8.Valid(inv.Data) {
		t.Errorf("client sent a text frame that is not UTF-8: data %q", inv.Data)
	}
}
