package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// waitTimeout bounds every wait for a frame in these tests.
const waitTimeout = 5 * time.Second

// newTestServer starts an engine that logs warnings to t and is closed
// when the test ends.
func newTestServer(t testing.TB) *Engine {
	t.Helper()
	return newTestServerWith(t, Options{Logger: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))})
}

func newTestServerWith(t testing.TB, opts Options) *Engine {
	t.Helper()
	s, err := Start(context.Background(), "127.0.0.1:0", opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// received is one frame read by a peer, or why reading stopped.
type received struct {
	msg wire.Message
	raw []byte
	err error
}

// peer is a raw worker connection speaking wire frames, for driving the
// engine exactly as a worker would.
type peer struct {
	t      testing.TB
	ws     *websocket.Conn
	id     string // worker id from workerregistered
	token  string // reattach token
	frames chan received
	pongs  chan string // application data of control pongs
	done   chan struct{}
	wmu    sync.Mutex
}

// dial connects a worker and reads its workerregistered frame.
func dial(t testing.TB, s *Engine) *peer {
	t.Helper()
	p := dialRaw(t, s.URL())
	_ = p.ws.SetReadDeadline(time.Now().Add(waitTimeout))
	_, b, err := p.ws.ReadMessage()
	if err != nil {
		t.Fatalf("read first frame: %v", err)
	}
	_ = p.ws.SetReadDeadline(time.Time{})
	m, err := wire.Decode(b)
	if err != nil {
		t.Fatalf("first frame %s: %v", b, err)
	}
	reg, ok := m.(wire.WorkerRegistered)
	if !ok {
		t.Fatalf("first frame is %s, want workerregistered", b)
	}
	p.id, p.token = reg.WorkerID, reg.ReattachToken
	p.start()
	return p
}

// dialRaw opens a socket without reading anything; call start to run its
// reader.
func dialRaw(t testing.TB, url string) *peer {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	p := &peer{t: t, ws: ws, frames: make(chan received, 16384), pongs: make(chan string, 16), done: make(chan struct{})}
	ws.SetPongHandler(func(data string) error {
		p.pongs <- data
		return nil
	})
	t.Cleanup(p.close)
	return p
}

func (p *peer) start() {
	go func() {
		defer close(p.done)
		defer close(p.frames)
		for {
			_, b, err := p.ws.ReadMessage()
			if err != nil {
				p.frames <- received{err: err}
				return
			}
			m, err := wire.Decode(b)
			p.frames <- received{msg: m, raw: b, err: err}
		}
	}()
}

// close drops the socket and waits for the reader.
func (p *peer) close() {
	_ = p.ws.Close()
	select {
	case <-p.done:
	case <-time.After(waitTimeout):
		p.t.Errorf("peer reader did not stop")
	}
}

// disconnect closes p and waits until the engine has cleaned it up.
func disconnect(t testing.TB, s *Engine, p *peer) {
	t.Helper()
	p.close()
	waitCleanedUp(t, s, p)
}

// waitCleanedUp waits until the engine has run p's disconnect cleanup,
// whose registry effects are applied at once.
func waitCleanedUp(t testing.TB, s *Engine, p *peer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := s.waitFor(ctx, "cleanup of "+p.id, func() bool { return s.workers[p.id] == nil }); err != nil {
		t.Fatal(err)
	}
}

// send writes one frame.
func (p *peer) send(m wire.Message) {
	p.t.Helper()
	if err := p.trySend(m); err != nil {
		p.t.Fatal(err)
	}
}

// trySend writes one frame; it is safe to use from any goroutine.
func (p *peer) trySend(m wire.Message) error {
	b, err := wire.Encode(m)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.ws.WriteMessage(websocket.TextMessage, b)
}

// sendRaw writes a frame of the given WebSocket kind as is.
func (p *peer) sendRaw(kind int, s string) {
	p.t.Helper()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.ws.WriteMessage(kind, []byte(s)); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// recvRaw is recv that also returns the frame's bytes.
func (p *peer) recvRaw() (wire.Message, []byte, error) {
	select {
	case r, ok := <-p.frames:
		if !ok || r.msg == nil && r.raw == nil {
			return nil, nil, fmt.Errorf("worker %s: socket ended while waiting for a frame: %v", p.id, r.err)
		}
		if r.err != nil {
			return nil, r.raw, fmt.Errorf("worker %s: engine sent an undecodable frame %s: %v", p.id, r.raw, r.err)
		}
		return r.msg, r.raw, nil
	case <-time.After(waitTimeout):
		return nil, nil, fmt.Errorf("worker %s: no frame within %s", p.id, waitTimeout)
	}
}

// recv returns the next frame, or why there is none: a timeout, a closed
// socket or a frame the wire package cannot decode. It is safe to use from
// any goroutine.
func (p *peer) recv() (wire.Message, error) {
	m, _, err := p.recvRaw()
	return m, err
}

// next is recv that fails the test when there is no frame.
func (p *peer) next() wire.Message {
	p.t.Helper()
	m, err := p.recv()
	if err != nil {
		p.t.Fatal(err)
	}
	return m
}

// expect returns the next frame, which must be a T.
func expect[T wire.Message](p *peer) T {
	p.t.Helper()
	m := p.next()
	v, ok := m.(T)
	if !ok {
		var want T
		p.t.Fatalf("worker %s: got %s %+v, want %s", p.id, m.MessageType(), m, want.MessageType())
	}
	return v
}

// barrier proves that the engine processed every frame this peer sent
// before it and sent nothing else in between: frames from one connection
// are handled in order, so the pong must be the very next frame.
func (p *peer) barrier() {
	p.t.Helper()
	p.send(wire.Ping{})
	if m := p.next(); m.MessageType() != wire.TypePong {
		p.t.Fatalf("worker %s: got %s %+v before the pong, want nothing", p.id, m.MessageType(), m)
	}
}

// expectClosed waits until the engine ends the socket.
func (p *peer) expectClosed() {
	p.t.Helper()
	for {
		select {
		case r, ok := <-p.frames:
			if !ok || r.msg == nil && r.raw == nil {
				return
			}
			p.t.Fatalf("worker %s: got %s while waiting for the socket to end", p.id, r.raw)
		case <-time.After(waitTimeout):
			p.t.Fatalf("worker %s: socket still open after %s", p.id, waitTimeout)
		}
	}
}

// drainUntilClosed discards frames until the engine ends the socket.
func (p *peer) drainUntilClosed() {
	p.t.Helper()
	timeout := time.After(waitTimeout)
	for {
		select {
		case r, ok := <-p.frames:
			if !ok || r.msg == nil && r.raw == nil {
				return
			}
		case <-timeout:
			p.t.Fatalf("worker %s: socket still open after %s", p.id, waitTimeout)
		}
	}
}

// invoke sends a synchronous call and returns its invocation id.
func (p *peer) invoke(fn, data string) string {
	p.t.Helper()
	id := uuid.NewString()
	p.send(wire.InvokeFunction{InvocationID: id, FunctionID: fn, Data: json.RawMessage(data)})
	return id
}

// call makes a synchronous call and waits for its result, which must be
// the next frame.
func (p *peer) call(fn, data string) wire.InvocationResult {
	p.t.Helper()
	id := p.invoke(fn, data)
	res := expect[wire.InvocationResult](p)
	if res.InvocationID != id {
		p.t.Fatalf("result for invocation %s, want %s", res.InvocationID, id)
	}
	return res
}

// callOK makes a call that must succeed and returns its result field.
func (p *peer) callOK(fn, data string) json.RawMessage {
	p.t.Helper()
	res := p.call(fn, data)
	if res.Error != nil {
		p.t.Fatalf("%s(%s): error %+v", fn, data, res.Error)
	}
	return res.Result
}

// register registers a function and waits until the engine applied it.
func (p *peer) register(fn string) {
	p.t.Helper()
	p.send(wire.RegisterFunction{ID: fn})
	p.barrier()
}

// registerWorker reports worker metadata synchronously.
func (p *peer) registerWorker(meta string) {
	p.t.Helper()
	if got := string(p.callOK("engine::workers::register", meta)); got != `{"success":true}` {
		p.t.Fatalf("engine::workers::register = %s", got)
	}
}

// serve answers every invokefunction for fn with handle's result until the
// socket ends; it runs in its own goroutine and stops with the peer.
func (p *peer) serve(handle func(wire.InvokeFunction) wire.InvocationResult) {
	go func() {
		for r := range p.frames {
			inv, ok := r.msg.(wire.InvokeFunction)
			if !ok {
				continue
			}
			res := handle(inv)
			res.InvocationID, res.FunctionID = inv.InvocationID, inv.FunctionID
			_ = p.trySend(res)
		}
	}()
}
