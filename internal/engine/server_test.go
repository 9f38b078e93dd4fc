package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

func TestURLIsLoopbackWebSocket(t *testing.T) {
	s := newTestServer(t)
	defer s.Close()
	if !regexp.MustCompile(`^ws://127\.0\.0\.1:\d+$`).MatchString(s.URL()) {
		t.Errorf("URL() = %q, want ws://127.0.0.1:<port>", s.URL())
	}
}

func TestStartFailsOnBusyPort(t *testing.T) {
	s := newTestServer(t)
	if _, err := Start(context.Background(), strings.TrimPrefix(s.URL(), "ws://"), Options{}); err == nil {
		t.Fatal("Start on a busy port succeeded")
	}
}

func TestHandshake(t *testing.T) {
	s := newTestServer(t)
	a, b := dial(t, s), dial(t, s)
	for _, id := range []string{a.id, a.token, b.id, b.token} {
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.String() != id {
			t.Errorf("%q is not a lowercase UUIDv4 (%v)", id, err)
		}
	}
	if a.id == b.id || a.token == b.token || a.id == a.token {
		t.Errorf("ids and tokens must all differ: %s %s %s %s", a.id, a.token, b.id, b.token)
	}
	workers := s.Workers()
	if len(workers) != 2 || workers[0].ID != a.id || workers[1].ID != b.id {
		t.Errorf("Workers() = %+v, want %s then %s", workers, a.id, b.id)
	}
}

func TestUnknownPathIsNotFound(t *testing.T) {
	s := newTestServer(t)
	resp, err := http.Get("http" + strings.TrimPrefix(s.URL(), "ws") + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope = %d, want 404", resp.StatusCode)
	}
}

func TestOtelSocketDiscardsFrames(t *testing.T) {
	s := newTestServer(t)
	o := dialRaw(t, s.URL()+"/otel")
	o.start()
	o.sendRaw(websocket.BinaryMessage, "OTLP\x00\x01spans")
	o.sendRaw(websocket.BinaryMessage, "MTRCmetrics")
	o.sendRaw(websocket.TextMessage, `{"type":"registerfunction","id":"otel::sneaky"}`)
	o.sendRaw(websocket.TextMessage, `{"type":"ping"}`)
	// A control ping is answered, which also proves the frames above were
	// read (and discarded) without the engine sending anything.
	if err := o.ws.WriteControl(websocket.PingMessage, []byte("otel"), time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case data := <-o.pongs:
		if data != "otel" {
			t.Errorf("pong data %q, want %q", data, "otel")
		}
	case <-time.After(waitTimeout):
		t.Fatal("no pong on /otel")
	}
	select {
	case r := <-o.frames:
		t.Fatalf("/otel sent %s (%v), want nothing", r.raw, r.err)
	default:
	}
	if len(s.Workers()) != 0 {
		t.Errorf("/otel registered a worker: %+v", s.Workers())
	}
	if _, ok := s.Function("otel::sneaky"); ok {
		t.Error("/otel text frame registered a function")
	}
}

func TestDropConnections(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.register("svc::f")
	p.send(wire.RegisterTrigger{ID: "t1", TriggerType: "svc::type", FunctionID: "svc::f", Config: []byte(`{}`)})
	p.barrier()

	s.DropConnections()

	// Cleanup is complete when DropConnections returns.
	if _, ok := s.Function("svc::f"); ok {
		t.Error("function survived its connection")
	}
	if got := s.Bindings(); len(got) != 0 {
		t.Errorf("bindings survived: %+v", got)
	}
	if got := s.Workers(); len(got) != 0 {
		t.Errorf("workers survived: %+v", got)
	}
	p.expectClosed()

	q := dial(t, s)
	q.register("svc::f")
	if _, ok := s.Function("svc::f"); !ok {
		t.Error("a new connection could not register after DropConnections")
	}
}

func TestRestartKeepsStateAndPort(t *testing.T) {
	s := newTestServer(t)
	url := s.URL()
	p := dial(t, s)
	p.callOK("state::set", `{"scope":"skills","key":"pdf","value":{"id":"pdf"}}`)
	p.register("svc::f")
	p.register("state::get") // a worker may replace a built-in

	if err := s.Restart(); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	p.expectClosed()
	if s.URL() != url {
		t.Errorf("URL after restart = %s, want %s", s.URL(), url)
	}
	if _, ok := s.Function("svc::f"); ok {
		t.Error("worker function survived the restart")
	}
	f, ok := s.Function("state::get")
	if !ok || f.WorkerID != "" {
		t.Errorf("state::get after restart = %+v, %v; want the built-in back", f, ok)
	}

	q := dial(t, s)
	if got := string(q.callOK("state::get", `{"scope":"skills","key":"pdf"}`)); got != `{"id":"pdf"}` {
		t.Errorf("state after restart = %s, want {\"id\":\"pdf\"}", got)
	}
}

// While paused the engine refuses connections and keeps state, which
// SetState and DeleteState can still change (what changes during an
// outage); Resume
// serves again on the same port, with that change.
func TestPauseRefusesConnectionsAndResumeServesTheStateWrittenMeanwhile(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.register("svc::f")
	p.callOK("state::set", `{"scope":"skills","key":"gone","value":{"id":"gone"}}`)
	if err := s.Pause(); err != nil {
		t.Fatalf("Pause: %v", err)
	}
	p.expectClosed()
	if err := s.Pause(); err == nil {
		t.Error("a second Pause succeeded")
	}
	if ws, _, err := websocket.DefaultDialer.Dial(s.URL(), nil); err == nil {
		ws.Close()
		t.Fatal("a paused engine accepted a connection")
	}
	if err := s.SetState("skills", "meanwhile", json.RawMessage(`{"id":"meanwhile"}`)); err != nil {
		t.Fatalf("SetState while paused: %v", err)
	}
	s.DeleteState("skills", "gone")
	if err := s.Resume(); err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if err := s.Resume(); err == nil {
		t.Error("Resume of a running engine succeeded")
	}
	q := dial(t, s)
	if got := string(q.callOK("state::get", `{"scope":"skills","key":"meanwhile"}`)); got != `{"id":"meanwhile"}` {
		t.Errorf("state after resume = %s, want the row written while paused", got)
	}
	if got := q.callOK("state::get", `{"scope":"skills","key":"gone"}`); len(got) != 0 {
		t.Errorf("a row deleted while paused = %s, want none", got)
	}
	if _, ok := s.Function("svc::f"); ok {
		t.Error("a worker function survived the pause")
	}
}

func TestRestartAfterCloseFails(t *testing.T) {
	s := newTestServer(t)
	s.Close()
	s.Close() // idempotent
	if err := s.Restart(); err == nil {
		t.Error("Restart after Close succeeded")
	}
}

func TestCloseWaitsForEveryGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	s := newTestServer(t)
	peers := []*peer{dial(t, s), dial(t, s), dial(t, s)}
	o := dialRaw(t, s.URL()+"/otel")
	o.start()
	peers[0].register("svc::slow")
	// An invocation left in flight must not keep anything alive.
	peers[1].invoke("svc::slow", `{}`)
	expect[wire.InvokeFunction](peers[0])

	s.Close()
	for _, p := range peers {
		p.drainUntilClosed() // the caller may first get invocation_stopped
	}
	o.close()
	waitGoroutinesBack(t, before)
	if _, _, err := websocket.DefaultDialer.Dial(s.URL(), nil); err == nil {
		t.Error("dial after Close succeeded")
	}
}

// waitGoroutinesBack waits until no more goroutines run than before. The
// runtime announces no goroutine's exit, so this polls: the count
// decides, the deadline only bounds a failure.
func waitGoroutinesBack(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before,
				buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWaitHelpers(t *testing.T) {
	s := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	p := dial(t, s)
	errs := make(chan error, 4)
	go func() { errs <- s.WaitFunction(ctx, "svc::f") }()
	go func() { errs <- s.WaitTriggerType(ctx, "svc::type") }()
	go func() { errs <- s.WaitBinding(ctx, "t1") }()
	go func() { errs <- s.WaitWorker(ctx, "svc") }()
	p.send(wire.RegisterFunction{ID: "svc::f"})
	p.send(wire.RegisterTriggerType{ID: "svc::type"})
	p.send(wire.RegisterTrigger{ID: "t1", TriggerType: "svc::type", FunctionID: "svc::f", Config: []byte(`{}`)})
	expect[wire.RegisterTrigger](p)
	p.registerWorker(`{"name":"svc"}`)
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	go func() { errs <- s.WaitFunctionGone(ctx, "svc::f") }()
	p.send(wire.UnregisterFunction{ID: "svc::f"})
	if err := <-errs; err != nil {
		t.Error(err)
	}

	short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelShort()
	if err := s.WaitFunction(short, "svc::never"); err == nil {
		t.Error("WaitFunction for a missing function returned nil")
	}
}
