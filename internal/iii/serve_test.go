package iii

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

func invocationID(n int) string { return fmt.Sprintf("%08d-0000-4000-a000-000000000000", n) }

// resultFor returns a matcher of the invocationresult for id.
func resultFor(id string) func(received) bool {
	return func(r received) bool {
		m, ok := r.msg.(wire.InvocationResult)
		return ok && m.InvocationID == id
	}
}

// TestConcurrentHandlers runs several invocations whose handlers only
// return once all of them have started, so they must run concurrently,
// and checks each gets exactly one result with its trace context echoed.
func TestConcurrentHandlers(t *testing.T) {
	const n = 5
	p := newPeer(t)
	c, _ := newClient(t, p)
	var started sync.WaitGroup
	started.Add(n)
	c.RegisterFunction(Function{ID: "echo", Handler: func(ctx context.Context, req Request) (any, error) {
		started.Done()
		started.Wait()
		return map[string]any{"data": req.Data, "metadata": req.Metadata, "invocation_id": req.InvocationID}, nil
	}})
	startReady(t, c)
	pc := p.waitConn(1)

	for i := range n {
		pc.send(wire.InvokeFunction{InvocationID: invocationID(i), FunctionID: "echo",
			Data: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)), Metadata: json.RawMessage(`{"m":true}`),
			Traceparent: fmt.Sprintf("00-trace-%d-01", i), Baggage: fmt.Sprintf("k=%d", i)})
	}
	for i := range n {
		p.waitFrame("result", resultFor(invocationID(i)))
	}
	roundTrip(t, p, pc)

	for i := range n {
		id := invocationID(i)
		var got []wire.Message
		for _, m := range p.framesOn(1) {
			if r, ok := m.(wire.InvocationResult); ok && r.InvocationID == id {
				got = append(got, r)
			}
		}
		want := []wire.Message{wire.InvocationResult{InvocationID: id, FunctionID: "echo",
			Result:      json.RawMessage(fmt.Sprintf(`{"data":{"i":%d},"invocation_id":%q,"metadata":{"m":true}}`, i, id)),
			Traceparent: fmt.Sprintf("00-trace-%d-01", i), Baggage: fmt.Sprintf("k=%d", i)}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results for invocation %d (-want +got):\n%s", i, diff)
		}
	}
}

type codedErr struct{}

func (codedErr) Error() string     { return "quota exceeded" }
func (codedErr) ErrorCode() string { return "rate_limited" }

// TestInvocationResults checks how a handler's outcome goes on the wire.
func TestInvocationResults(t *testing.T) {
	tests := []struct {
		name    string
		handler Handler
		fn      string // function invoked; defaults to the registered one
		want    wire.InvocationResult
	}{
		{
			name:    "nil result has no result field",
			handler: func(context.Context, Request) (any, error) { return nil, nil },
			want:    wire.InvocationResult{},
		},
		{
			name:    "raw message is sent verbatim",
			handler: func(context.Context, Request) (any, error) { return json.RawMessage(`{"b":[1,"x"]}`), nil },
			want:    wire.InvocationResult{Result: json.RawMessage(`{"b":[1,"x"]}`)},
		},
		{
			name: "an Encoded result is sent as it was encoded",
			handler: func(context.Context, Request) (any, error) {
				return EncodeResult(struct {
					MD string `json:"md"`
				}{"<b>x</b>"})
			},
			want: wire.InvocationResult{Result: json.RawMessage(`{"md":"<b>x</b>"}`)},
		},
		{
			name:    "an empty Encoded result has no result field",
			handler: func(context.Context, Request) (any, error) { return EncodeResult(nil) },
			want:    wire.InvocationResult{},
		},
		{
			name:    "values are encoded without HTML escaping",
			handler: func(context.Context, Request) (any, error) { return map[string]string{"md": "<b>a & b</b>"}, nil },
			want:    wire.InvocationResult{Result: json.RawMessage(`{"md":"<b>a & b</b>"}`)},
		},
		{
			name:    "plain error is invocation_failed",
			handler: func(context.Context, Request) (any, error) { return "ignored", errors.New("disk full") },
			want:    wire.InvocationResult{Error: &wire.ErrorBody{Code: "invocation_failed", Message: "disk full"}},
		},
		{
			name: "*Error keeps its code",
			handler: func(context.Context, Request) (any, error) {
				return nil, fmt.Errorf("wrapped: %w", &Error{Code: "not_found", Message: "Skill not found: x"})
			},
			want: wire.InvocationResult{Error: &wire.ErrorBody{Code: "not_found", Message: "Skill not found: x"}},
		},
		{
			name:    "ErrorCode keeps its code",
			handler: func(context.Context, Request) (any, error) { return nil, codedErr{} },
			want:    wire.InvocationResult{Error: &wire.ErrorBody{Code: "rate_limited", Message: "quota exceeded"}},
		},
		{
			name:    "panic is invocation_failed",
			handler: func(context.Context, Request) (any, error) { panic("boom") },
			want: wire.InvocationResult{Error: &wire.ErrorBody{Code: "invocation_failed",
				Message: "handler f::under-test panicked: boom"}},
		},
		{
			name:    "unencodable result is invocation_failed",
			handler: func(context.Context, Request) (any, error) { return func() {}, nil },
			want: wire.InvocationResult{Error: &wire.ErrorBody{Code: "invocation_failed",
				Message: "encode result of f::under-test: json: unsupported type: func()"}},
		},
		{
			name:    "invalid raw message is invocation_failed",
			handler: func(context.Context, Request) (any, error) { return json.RawMessage(`{`), nil },
			want: wire.InvocationResult{Error: &wire.ErrorBody{Code: "invocation_failed",
				Message: "encode result of f::under-test: json.RawMessage is not valid JSON"}},
		},
		{
			// encoding/json copies a nested raw value without checking its
			// UTF-8, so its output is checked as the frame is built.
			name: "encoded result that is not UTF-8 is invocation_failed",
			handler: func(context.Context, Request) (any, error) {
				return struct{ R json.RawMessage }{json.RawMessage("\"caf\xe9\"")}, nil
			},
			want: wire.InvocationResult{Error: &wire.ErrorBody{Code: "invocation_failed",
				Message: `encode result of f::under-test: encode invocationresult: field "result" is not valid JSON`}},
		},
		{
			name:    "result that writes itself",
			handler: func(context.Context, Request) (any, error) { return appended("<b>\b</b>"), nil },
			want:    wire.InvocationResult{Result: json.RawMessage(`"<b>\b</b>"`)},
		},
		{
			name:    "unknown function",
			handler: nopHandler,
			fn:      "nope::x",
			want: wire.InvocationResult{Error: &wire.ErrorBody{Code: "function_not_found",
				Message: "Function nope::x not found"}},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPeer(t)
			c, _ := newClient(t, p)
			c.RegisterFunction(Function{ID: "f::under-test", Handler: tt.handler})
			startReady(t, c)
			pc := p.waitConn(1)
			fn := tt.fn
			if fn == "" {
				fn = "f::under-test"
			}
			id := invocationID(i)
			pc.send(wire.InvokeFunction{InvocationID: id, FunctionID: fn, Data: json.RawMessage(`{}`)})
			got := p.waitFrame("result", resultFor(id))
			want := tt.want
			want.InvocationID, want.FunctionID = id, fn
			if diff := cmp.Diff(wire.Message(want), got.msg); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			roundTrip(t, p, pc) // the connection still serves
		})
	}
}

// TestInvocationWithoutID runs the handler and sends nothing back.
func TestInvocationWithoutID(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	ran := make(chan json.RawMessage, 1)
	c.RegisterFunction(Function{ID: "f", Handler: func(_ context.Context, req Request) (any, error) {
		ran <- req.Data
		return "unseen", nil
	}})
	startReady(t, c)
	pc := p.waitConn(1)
	pc.send(wire.InvokeFunction{FunctionID: "f", Data: json.RawMessage(`{"x":1}`)})
	if got := <-ran; string(got) != `{"x":1}` {
		t.Errorf("handler got %s", got)
	}
	waitHandlers(t, c)
	roundTrip(t, p, pc) // a reply, had one been queued, would precede the pong
	for _, m := range p.framesOn(1) {
		if m.MessageType() == wire.TypeInvocationResult {
			t.Errorf("unexpected result %#v", m)
		}
	}
}

// TestHandlerContextEndsOnClose checks that Close cancels running
// handlers and waits for them.
func TestHandlerContextEndsOnClose(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	started := make(chan struct{})
	var finished bool
	c.RegisterFunction(Function{ID: "wait", Handler: func(ctx context.Context, _ Request) (any, error) {
		close(started)
		<-ctx.Done()
		finished = true
		return nil, ctx.Err()
	}})
	startReady(t, c)
	p.waitConn(1).send(wire.InvokeFunction{InvocationID: invocationID(1), FunctionID: "wait", Data: json.RawMessage(`{}`)})
	<-started
	c.Close()
	if !finished {
		t.Error("Close returned before the handler finished")
	}
}

// TestReplyStaysOnItsConnection: a handler that finishes after its
// connection dropped must not answer on the next connection, where the
// invocation id means nothing.
func TestReplyStaysOnItsConnection(t *testing.T) {
	p := newPeer(t)
	c, logs := newClient(t, p)
	started, release := make(chan struct{}), make(chan struct{})
	c.RegisterFunction(Function{ID: "slow", Handler: func(context.Context, Request) (any, error) {
		close(started)
		<-release
		return "late", nil
	}})
	startReady(t, c)
	p.waitConn(1).send(wire.InvokeFunction{InvocationID: invocationID(1), FunctionID: "slow", Data: json.RawMessage(`{}`)})
	<-started
	p.dropAll()
	p.waitFrame("second handshake", isType(2, wire.TypeRegisterFunction))
	close(release)
	waitLog(t, logs, "result dropped: its connection has ended")
	roundTrip(t, p, p.waitConn(2))
	for _, m := range p.framesOn(2) {
		if m.MessageType() == wire.TypeInvocationResult {
			t.Errorf("result leaked onto the next connection: %#v", m)
		}
	}
}

// TestHandlerResultWithInvalidUTF8IsNotSent (docs/protocol.md#frames): every frame
// is a JSON text frame, and a WebSocket text message must be valid UTF-8
// (RFC 6455 §8.1; tungstenite, which the engine uses, fails the
// connection with Error::Utf8, and Node's ws closes with 1007). json.Valid
// and wire.Valid once accepted bytes that are not UTF-8, so a
// json.RawMessage handler result holding such bytes went out verbatim in
// a text frame: on a real engine the whole connection (and every call in
// flight on it) would die. Such a result must be refused instead.
func TestHandlerResultWithInvalidUTF8IsNotSent(t *testing.T) {
	bad := json.RawMessage("\"caf\xe9\"") // Latin-1 é, e.g. a file read from disk
	p := newPeer(t)
	c, _ := newClient(t, p)
	c.RegisterFunction(Function{ID: "latin1", Handler: func(context.Context, Request) (any, error) {
		return bad, nil
	}})
	startReady(t, c)
	id := invocationID(1)
	p.waitConn(1).send(wire.InvokeFunction{InvocationID: id, FunctionID: "latin1", Data: json.RawMessage(`{}`)})
	res := p.waitFrame("result", resultFor(id)).msg.(wire.InvocationResult)
	// Raw fields alias the received text frame.
	if !utf8.Valid(res.Result) {
		t.Errorf("client sent a text frame that is not UTF-8: result %q", res.Result)
	}
}

// panickyResult is a handler result whose encoding panics.
type panickyResult struct{}

func (panickyResult) MarshalJSON() ([]byte, error) { panic("boom in MarshalJSON") }

// ptrCodedErr is a domain error with a pointer receiver; a handler
// returning a typed nil *ptrCodedErr is a classic Go slip.
type ptrCodedErr struct{ code, msg string }

func (e *ptrCodedErr) Error() string     { return e.msg }
func (e *ptrCodedErr) ErrorCode() string { return e.code }

// TestPanicWhileEncodingTheReplyIsRecovered
// (docs/protocol.md#worker-obligations, "recover panics"):
// encoding the result (encoding/json re-panics a MarshalJSON panic) and
// mapping the error (errorBody calls ErrorCode/Error, which panic on a
// typed nil) run after the handler returns; a panic there must become one
// invocation_failed, not kill the worker. The scenario runs in a child
// process, so that a regression crashes only the child.
func TestPanicWhileEncodingTheReplyIsRecovered(t *testing.T) {
	cases := map[string]Handler{
		"marshal": func(context.Context, Request) (any, error) { return panickyResult{}, nil },
		"typed-nil-error": func(context.Context, Request) (any, error) {
			var e *ptrCodedErr
			return nil, e
		},
	}
	const childEnv = "III_REPLY_PANIC_CHILD"
	if name := os.Getenv(childEnv); name != "" {
		p := newPeer(t)
		c, _ := newClient(t, p)
		c.RegisterFunction(Function{ID: "f", Handler: cases[name]})
		startReady(t, c)
		id := invocationID(1)
		p.waitConn(1).send(wire.InvokeFunction{InvocationID: id, FunctionID: "f", Data: json.RawMessage(`{}`)})
		res := p.waitFrame("result", resultFor(id)).msg.(wire.InvocationResult)
		if res.Error == nil || res.Error.Code != CodeInvocationFailed {
			t.Errorf("result %+v, want invocation_failed", res)
		}
		return
	}
	for name := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPanicWhileEncodingTheReplyIsRecovered$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+name)
			out, err := cmd.CombinedOutput()
			if strings.Contains(string(out), "no tests to run") {
				t.Fatalf("the child process ran no test: its -test.run pattern is stale\n%s", out)
			}
			if err != nil {
				s := string(out)
				if i := strings.Index(s, "panic:"); i >= 0 {
					s = s[i:min(len(s), i+400)]
				}
				t.Errorf("worker process died instead of answering invocation_failed: %v\n%s", err, s)
			}
		})
	}
}

// A result over MaxResultBytes would be a frame the engine refuses by
// closing the connection (every call in flight with it); the handler's
// caller gets an unavailable error naming the budget instead, and the
// connection stays up (docs/decisions.md D26).
func TestResultOverTheBudgetIsAnErrorNotADroppedConnection(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p, func(o *Options) {
		o.MaxResultBytes = 1 << 10
		o.OversizeHint = func(id string) string {
			if id == "hinted" {
				return "page it"
			}
			return ""
		}
	})
	for _, id := range []string{"big", "hinted"} {
		c.RegisterFunction(Function{ID: id, Handler: func(context.Context, Request) (any, error) {
			return strings.Repeat("x", 2<<10), nil
		}})
	}
	c.RegisterFunction(Function{ID: "small", Handler: func(context.Context, Request) (any, error) {
		return "ok", nil
	}})
	startReady(t, c)
	conn := p.waitConn(1)
	big, small := invocationID(1), invocationID(2)
	conn.send(wire.InvokeFunction{InvocationID: big, FunctionID: "big", Data: json.RawMessage(`{}`)})
	res := p.waitFrame("result", resultFor(big)).msg.(wire.InvocationResult)
	want := "the result of big is 2050 bytes, over this worker's response budget of 1024 bytes; ask for less"
	if res.Error == nil || res.Error.Code != CodeUnavailable || res.Error.Message != want || res.Result != nil {
		t.Errorf("result = %+v (error %+v), want unavailable %q", res, res.Error, want)
	}
	hinted := invocationID(3)
	conn.send(wire.InvokeFunction{InvocationID: hinted, FunctionID: "hinted", Data: json.RawMessage(`{}`)})
	res = p.waitFrame("result", resultFor(hinted)).msg.(wire.InvocationResult)
	if want := "the result of hinted is 2050 bytes, over this worker's response budget of 1024 bytes; page it"; res.Error == nil || res.Error.Message != want {
		t.Errorf("hinted result error = %+v, want %q", res.Error, want)
	}
	conn.send(wire.InvokeFunction{InvocationID: small, FunctionID: "small", Data: json.RawMessage(`{}`)})
	if res := p.waitFrame("result", resultFor(small)).msg.(wire.InvocationResult); string(res.Result) != `"ok"` {
		t.Errorf("next call on the same connection = %+v, want \"ok\"", res)
	}
	if n := p.connCount(); n != 1 {
		t.Errorf("%d connections, want the first one kept", n)
	}
}

// EncodeResult checks once what a frame is checked for, so an Encoded
// answer kept and sent many times needs no scan per call: a result that
// does not encode as valid JSON in valid UTF-8 is refused when it is
// encoded, never sent.
func TestEncodeResultChecksOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
	}{
		{"a nested raw value that is not UTF-8", struct {
			R json.RawMessage `json:"r"`
		}{json.RawMessage("\"caf\xe9\"")}},
		{"a raw message that is not JSON", json.RawMessage(`{`)},
	} {
		if b, err := EncodeResult(c.v); err == nil {
			t.Errorf("%s: EncodeResult = %q, want an error", c.name, b)
		}
	}
	b, err := EncodeResult(map[string]any{"b": 1, "a": "<&>"})
	if err != nil || string(b) != `{"a":"<&>","b":1}` {
		t.Errorf("EncodeResult of a map = %q, %v", b, err)
	}
}
