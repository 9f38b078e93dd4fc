package iii

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// TestReviewRawJSONWithInvalidUTF8 (§1.2, §9.1.2): every frame is a JSON
// text frame, and a WebSocket text message must be valid UTF-8 (RFC 6455
// §8.1; tungstenite, which the engine uses, fails the connection with
// Error::Utf8, and Node's ws closes with 1007). json.Valid and wire.Valid
// once accepted bytes that are not UTF-8, so a json.RawMessage handler
// result or call payload holding such bytes went out verbatim in a text
// frame: on a real engine the whole connection (and every call in flight
// on it) would die. Such results and payloads must be refused instead.
func TestReviewRawJSONWithInvalidUTF8(t *testing.T) {
	bad := json.RawMessage("\"caf\xe9\"") // Latin-1 é, e.g. a file read from disk

	t.Run("handler result", func(t *testing.T) {
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
	})

	t.Run("call payload", func(t *testing.T) {
		p := newPeer(t)
		c, _ := newClient(t, p)
		startReady(t, c)
		err := c.InvokeVoid(Invocation{FunctionID: "x::y", Data: bad})
		if err != nil {
			return // refusing the payload is fine
		}
		inv := p.waitFrame("invoke", func(r received) bool {
			m, ok := r.msg.(wire.InvokeFunction)
			return ok && m.FunctionID == "x::y"
		}).msg.(wire.InvokeFunction)
		if !utf8.Valid(inv.Data) {
			t.Errorf("client sent a text frame that is not UTF-8: data %q", inv.Data)
		}
	})
}

// panickyResult is a handler result whose encoding panics.
type panickyResult struct{}

func (panickyResult) MarshalJSON() ([]byte, error) { panic("boom in MarshalJSON") }

// reviewCodedErr is a domain error with a pointer receiver; a handler returning
// a typed nil *reviewCodedErr is a classic Go slip.
type reviewCodedErr struct{ code, msg string }

func (e *reviewCodedErr) Error() string     { return e.msg }
func (e *reviewCodedErr) ErrorCode() string { return e.code }

// TestReviewPanicWhileEncodingTheReplyIsRecovered (§9.1.6 "recover
// panics"): encoding the result (encoding/json re-panics a MarshalJSON
// panic) and mapping the error (errorBody calls ErrorCode/Error, which
// panic on a typed nil) run after the handler returns; a panic there must
// become one invocation_failed, not kill the worker. The scenario runs in
// a child process, so that a regression crashes only the child.
func TestReviewPanicWhileEncodingTheReplyIsRecovered(t *testing.T) {
	cases := map[string]Handler{
		"marshal": func(context.Context, Request) (any, error) { return panickyResult{}, nil },
		"typed-nil-error": func(context.Context, Request) (any, error) {
			var e *reviewCodedErr
			return nil, e
		},
	}
	if name := os.Getenv("III_REVIEW_CHILD"); name != "" {
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
			cmd := exec.Command(os.Args[0], "-test.run=^TestReviewPanicWhileEncodingTheReplyIsRecovered$", "-test.count=1")
			cmd.Env = append(os.Environ(), "III_REVIEW_CHILD="+name)
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

// TestReviewReadErrorNotMaskedByWriter (conn.serve): when the read side ends
// the connection, gorilla has already sent a close frame (read limit,
// protocol error, or its reply to the engine's close), so a write the
// writer goroutine attempts before serve marks the conn dead fails with
// "close sent"; that error must not hide the reader's, the real cause
// (it once did, which made TestOversizedFrameReconnects flaky). Here the
// writer is kept busy and the scenario repeats on 12 connections.
func TestReviewReadErrorNotMaskedByWriter(t *testing.T) {
	p := newPeer(t)
	c, logs := newClient(t, p, func(o *Options) { o.MaxFrameBytes = 1 << 16 })
	for i := range 500 {
		c.RegisterFunction(Function{ID: fmt.Sprintf("f%04d", i), Description: strings.Repeat("d", 1024),
			Handler: func(context.Context, Request) (any, error) { return nil, nil }})
	}
	var mu sync.Mutex
	sent := map[int]bool{}
	p.setScript(func(pc *peerConn, m wire.Message) {
		mu.Lock()
		first := !sent[pc.n]
		sent[pc.n] = true
		mu.Unlock()
		if first {
			pc.sendRaw(websocket.TextMessage, []byte(`{"type":"ping","pad":"`+strings.Repeat("x", 1<<17)+`"}`))
		}
	})
	c.Start()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = c.InvokeVoid(Invocation{FunctionID: "busy"})
			}
		}()
	}
	eventually(t, "12 disconnects", func() bool { return logs.FilterMessage("disconnected from engine").Len() >= 12 })
	close(stop)
	wg.Wait()
	for _, e := range logs.FilterMessage("disconnected from engine").All() {
		if err, _ := e.ContextMap()["error"].(string); !strings.Contains(err, "larger than 65536 bytes") {
			t.Errorf("logged error %q, want the size limit", err)
		}
	}
}
