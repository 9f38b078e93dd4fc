package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

func TestJSONPingIsAnsweredWithPong(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.sendRaw(websocket.TextMessage, `{"type":"ping"}`)
	expect[wire.Pong](p)
	// An inbound pong needs no answer.
	p.sendRaw(websocket.TextMessage, `{"type":"pong"}`)
	p.barrier()
}

func TestControlPingIsAnswered(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	for _, data := range []string{"keepalive-1", "keepalive-2"} {
		if err := p.ws.WriteControl(websocket.PingMessage, []byte(data), time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-p.pongs:
			if got != data {
				t.Errorf("pong data %q, want %q", got, data)
			}
		case <-time.After(waitTimeout):
			t.Fatal("no pong for a control ping")
		}
	}
	p.barrier() // still serving, and no frame was sent for the pings
}

func TestBadFramesAreDroppedAndTheConnectionKeepsServing(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	s := newTestServerWith(t, Options{Logger: zap.New(core)})
	p := dial(t, s)
	const fid = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"
	tests := []struct {
		name  string
		kind  int
		frame string
	}{
		{"malformed json", websocket.TextMessage, `{"type":"registerfunction","id":`},
		{"not an object", websocket.TextMessage, `[1,2,3]`},
		{"json null", websocket.TextMessage, `null`},
		{"no type", websocket.TextMessage, `{"id":"bad::a"}`},
		{"unknown type", websocket.TextMessage, `{"type":"unregistertriggertype","id":"x"}`},
		{"engine-only type", websocket.TextMessage, `{"type":"registrationrejected","code":"X","namespace":"n","owner_worker_id":""}`},
		{"registerfunction without id", websocket.TextMessage, `{"type":"registerfunction"}`},
		{"registerfunction with a bad invocation", websocket.TextMessage, `{"type":"registerfunction","id":"bad::b","invocation":{"method":"GET"}}`},
		{"invoke without data", websocket.TextMessage, `{"type":"invokefunction","invocation_id":"` + fid + `","function_id":"state::list_groups"}`},
		{"invoke with non-uuid id", websocket.TextMessage, `{"type":"invokefunction","invocation_id":"42","function_id":"state::list_groups","data":{}}`},
		{"invoke with unknown action", websocket.TextMessage, `{"type":"invokefunction","invocation_id":"` + fid + `","function_id":"state::list_groups","data":{},"action":{"type":"later"}}`},
		{"enqueue without queue", websocket.TextMessage, `{"type":"invokefunction","invocation_id":"` + fid + `","function_id":"state::list_groups","data":{},"action":{"type":"enqueue"}}`},
		{"action not an object", websocket.TextMessage, `{"type":"invokefunction","invocation_id":"` + fid + `","function_id":"state::list_groups","data":{},"action":"void"}`},
		{"registertrigger without config", websocket.TextMessage, `{"type":"registertrigger","id":"bad-t","trigger_type":"x","function_id":"f"}`},
		{"registertriggertype without description", websocket.TextMessage, `{"type":"registertriggertype","id":"bad::type"}`},
		{"result without invocation id", websocket.TextMessage, `{"type":"invocationresult","function_id":"f","result":1}`},
		{"result with error lacking message", websocket.TextMessage, `{"type":"invocationresult","invocation_id":"` + fid + `","function_id":"f","error":{"code":"x"}}`},
		{"result for an unknown invocation", websocket.TextMessage, `{"type":"invocationresult","invocation_id":"` + fid + `","function_id":"f","result":1}`},
		{"trigger result for an unknown trigger", websocket.TextMessage, `{"type":"triggerregistrationresult","id":"nope","trigger_type":"x","function_id":"f","error":{"code":"c","message":"m"}}`},
		{"reattach with a non-uuid id", websocket.TextMessage, `{"type":"reattach","previous_worker_id":"me","reattach_token":"x"}`},
		{"binary garbage", websocket.BinaryMessage, "\x00\x01\x02"},
		{"empty text", websocket.TextMessage, ""},
		{"whitespace text", websocket.TextMessage, " \n\t "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			p.sendRaw(tt.kind, tt.frame)
			p.barrier()
		})
	}
	p.t = t
	for _, id := range []string{"bad::a", "bad::b"} {
		if _, ok := s.Function(id); ok {
			t.Errorf("a bad frame registered %s", id)
		}
	}
	if len(s.Bindings()) != 0 || len(s.TriggerTypes()) != len(builtinTriggerTypes()) {
		t.Errorf("bad frames changed triggers: %+v %+v", s.Bindings(), s.TriggerTypes())
	}
	if n := logs.FilterLevelExact(zapcore.DebugLevel).FilterMessageSnippet("dropped").Len(); n < 18 {
		t.Errorf("%d dropped-frame debug logs, want one per bad frame", n)
	}
	for _, e := range logs.FilterMessage("dropped undecodable frame").All() {
		if _, ok := e.ContextMap()["error"]; !ok {
			t.Errorf("dropped-frame log without the decode error: %+v", e)
		}
	}
	// The connection still works for real traffic.
	if got := string(p.callOK("state::list_groups", `{}`)); got != `{"groups":[]}` {
		t.Errorf("state::list_groups = %s", got)
	}
}

func TestBinaryFramesCarryJSON(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.sendRaw(websocket.BinaryMessage, `{"type":"registerfunction","id":"bin::f"}`)
	p.sendRaw(websocket.BinaryMessage, "OTLP{\"type\":\"registerfunction\",\"id\":\"bin::telemetry\"}")
	p.barrier()
	if _, ok := s.Function("bin::f"); !ok {
		t.Error("binary registerfunction was not applied")
	}
	if _, ok := s.Function("bin::telemetry"); ok {
		t.Error("an OTLP telemetry frame was parsed as a protocol frame")
	}
}

func TestUnknownFieldsAreIgnored(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.sendRaw(websocket.TextMessage, `{"type":"registerfunction","id":"ns::f","namespace":"team","future":[1]}`)
	p.barrier()
	if _, ok := s.Function("ns::f"); !ok {
		t.Fatal("registerfunction with 0.23 fields was dropped")
	}
	p.sendRaw(websocket.TextMessage, `{"type":"invokefunction","invocation_id":"3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a",`+
		`"function_id":"state::list_groups","data":{},"namespace":"default","extra":true}`)
	if got := expect[wire.InvocationResult](p); string(got.Result) != `{"groups":[]}` {
		t.Errorf("result = %+v", got)
	}
}

func TestFramesAreAppliedInArrivalOrder(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	// Registration and self-invocation in one burst: the call must see the
	// function, never function_not_found.
	for i := range 20 {
		fn := "order::f" + strings.Repeat("x", i)
		p.send(wire.RegisterFunction{ID: fn})
		id := p.invoke(fn, `{}`)
		inv := expect[wire.InvokeFunction](p)
		if inv.InvocationID != id || inv.FunctionID != fn {
			t.Fatalf("got %+v, want invocation %s of %s", inv, id, fn)
		}
		p.send(wire.InvocationResult{InvocationID: id, FunctionID: fn, Result: []byte(`"ok"`)})
		res := expect[wire.InvocationResult](p)
		if diff := cmp.Diff(wire.InvocationResult{InvocationID: id, FunctionID: fn, Result: []byte(`"ok"`)}, res); diff != "" {
			t.Fatalf("result (-want +got):\n%s", diff)
		}
	}
}

func TestOversizedFrameEndsOnlyThatConnection(t *testing.T) {
	s := newTestServerWith(t, Options{MaxFrameBytes: 1024})
	p := dial(t, s)
	p.register("big::f")
	p.sendRaw(websocket.TextMessage, `{"type":"ping","pad":"`+strings.Repeat("x", 2048)+`"}`)
	p.expectClosed()
	waitCleanedUp(t, s, p)
	q := dial(t, s)
	q.barrier()
	if _, ok := s.Function("big::f"); ok {
		t.Error("the dropped connection's function survived")
	}
}

func TestReattach(t *testing.T) {
	tests := []struct {
		name    string
		token   func(old *peer) string
		evicted bool
	}{
		{"matching token evicts the old connection", func(old *peer) string { return old.token }, true},
		{"wrong token is ignored", func(*peer) string { return "6f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a" }, false},
		{"missing token is ignored", func(*peer) string { return "" }, false},
		{"uppercase token does not match", func(old *peer) string { return strings.ToUpper(old.token) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			old := dial(t, s)
			old.register("re::f")
			fresh := dial(t, s)
			fresh.send(wire.Reattach{PreviousWorkerID: strings.ToUpper(old.id), ReattachToken: tt.token(old)})
			fresh.register("re::g")
			_, hasF := s.Function("re::f")
			if hasF == tt.evicted {
				t.Errorf("old function present = %v after reattach, want %v", hasF, !tt.evicted)
			}
			if tt.evicted {
				old.expectClosed()
				if len(s.Workers()) != 1 {
					t.Errorf("Workers() = %+v, want only the new connection", s.Workers())
				}
				return
			}
			old.barrier()
		})
	}
}

func TestReattachToItselfOrUnknownIsIgnored(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.register("re::f")
	p.send(wire.Reattach{PreviousWorkerID: p.id, ReattachToken: p.token})
	p.send(wire.Reattach{PreviousWorkerID: "6f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a", ReattachToken: p.token})
	p.barrier()
	if _, ok := s.Function("re::f"); !ok {
		t.Error("a self or unknown reattach cleaned the connection up")
	}
}

// TestNonUTF8FramesAreRefused: the real
// engine reads frames with tungstenite/axum, which refuses a text message
// that is not valid UTF-8 (Error::Utf8, the socket ends), and parses binary
// frames with serde_json::from_slice, which refuses invalid UTF-8 inside
// strings (the frame is dropped). gorilla validates neither and
// a lenient decoder would repair strings to U+FFFD, so an engine built on
// them would register "caf\uFFFD" and keep serving: a client that emits
// non-UTF-8 frames would pass here and break against the real engine.
func TestNonUTF8FramesAreRefused(t *testing.T) {
	const frame = "{\"type\":\"registerfunction\",\"id\":\"caf\xe9\"}"

	t.Run("text frame ends the connection", func(t *testing.T) {
		s := newTestServer(t)
		p := dial(t, s)
		p.sendRaw(websocket.TextMessage, frame)
		// The ping's write may already fail if the engine closed first;
		// either way the recv below must not get an answer.
		_ = p.trySend(wire.Ping{})
		if m, err := p.recv(); err == nil {
			t.Errorf("engine answered %s after a non-UTF-8 text frame; the real engine ends the socket", m.MessageType())
		}
		for _, f := range s.Functions() {
			if f.ID == "caf\uFFFD" {
				t.Errorf("non-UTF-8 text frame registered function %q", f.ID)
			}
		}
	})

	t.Run("binary frame is dropped", func(t *testing.T) {
		s := newTestServer(t)
		p := dial(t, s)
		p.sendRaw(websocket.BinaryMessage, frame)
		p.barrier()
		for _, f := range s.Functions() {
			if f.ID == "caf\uFFFD" {
				t.Errorf("binary frame with a non-UTF-8 string registered function %q; serde_json refuses it", f.ID)
			}
		}
	})
}
