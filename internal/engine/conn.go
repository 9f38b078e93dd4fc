package engine

import (
	"bytes"
	"encoding/json"
	"net"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
	"github.com/iii-hq/skills-go/internal/iii/wsbatch"
)

// conn is one worker connection. Its read loop runs in the HTTP handler's
// goroutine and processes frames strictly in arrival order; its writer
// goroutine is the only one that writes data frames to the socket (gorilla
// pongs to control pings are written by the read loop via WriteControl,
// which may run concurrently with it).
type conn struct {
	srv         *Engine
	id          string
	token       string
	ws          *websocket.Conn
	nc          *wsbatch.Conn // the socket under ws, for batched writes
	ip          string
	connectedAt time.Time
	log         *zap.Logger
	out         outbox
	writerDone  chan struct{}

	cleanupOnce sync.Once
	cleaned     chan struct{} // closed when the disconnect cleanup is complete

	// Set before the read loop starts, with Options.Namespaces only
	// (beginNamespace): nsDecided is closed once the namespace is fixed,
	// the worker refused or the connection gone, which stops the grace
	// goroutine; graceDone is closed when that goroutine has returned.
	nsDecided chan struct{}
	graceDone chan struct{}

	// Guarded by srv.mu.
	seq         uint64
	dead        bool                // cleanup has started: ignore its registrations
	functionIDs map[string]struct{} // ids it registered (in its namespace) and did not unregister
	invocations map[string]struct{} // calls it is caller or callee of
	meta        workerMeta
	namespace   string      // fixed namespace; "" until then, which reads as the default one (ns)
	nsState     nsState     // holding registrations until the namespace is known (namespaces.go)
	held        []heldFrame // registrations held meanwhile, in arrival order
	decided     bool        // nsDecided is closed
}

// workerMeta is what engine::workers::register stored for a connection.
type workerMeta struct {
	name, description, runtime, version, os, isolation *string
	pid                                                *uint32
	telemetry                                          any
}

func newConn(s *Engine, ws *websocket.Conn, nc *wsbatch.Conn, remoteAddr string) *conn {
	ip := remoteAddr
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		ip = host
	}
	id := uuid.NewString()
	return &conn{
		srv:         s,
		id:          id,
		token:       uuid.NewString(),
		ws:          ws,
		nc:          nc,
		ip:          ip,
		connectedAt: time.Now(),
		log:         s.log.With(zap.String("worker_id", id)),
		out:         outbox{ready: make(chan struct{}, 1)},
		writerDone:  make(chan struct{}),
		cleaned:     make(chan struct{}),
		functionIDs: map[string]struct{}{},
		invocations: map[string]struct{}{},
	}
}

// send queues a frame for the worker; false if the connection is gone.
func (c *conn) send(m wire.Message) bool {
	if r, ok := m.(wire.InvocationResult); ok && len(r.Result) >= largeResult && r.Error == nil {
		if msg, ok := resultPieces(r); ok {
			return c.out.push(msg)
		}
	}
	b, err := wire.Encode(m)
	if err != nil {
		c.log.Error("cannot encode frame", zap.String("type", m.MessageType()), zap.Error(err))
		return false
	}
	return c.out.push(wsbatch.Message{Head: b})
}

// largeResult is the size from which a result is written from where it
// lies rather than copied into its frame: a large answer (a worker's
// forwarded result, a state::list over a big scope) would otherwise be
// held twice while it waits to be written (issue 22, docs/decisions.md
// D52). A state::list that large is not even joined (sendArray).
const largeResult = wsbatch.FrameBufferSize

// resultPieces lays r out as its frame's head, the result itself and the
// frame's tail, the bytes wire.Encode would write without the copy. The
// result is checked as Encode checks it; ok is false for one that is not
// valid JSON, which Encode then refuses. The queue keeps r.Result until it
// is written, so it must not change meanwhile: results reach send as the
// engine's own bytes (canonical output, a joined state::list), never as a
// read buffer a connection reuses.
func resultPieces(r wire.InvocationResult) (msg wsbatch.Message, ok bool) {
	if !wire.Valid(r.Result) {
		return wsbatch.Message{}, false
	}
	head, tail := resultFrame(r)
	return wsbatch.Message{Head: head, Body: r.Result, Tail: tail}, true
}

// resultFrame renders r's frame around its result: what comes before the
// result and what comes after it.
func resultFrame(r wire.InvocationResult) (head, tail []byte) {
	at := 0
	frame, _ := wire.EncodeResult(r, 0, func(dst []byte) []byte {
		at = len(dst)
		return dst
	})
	return frame[:at:at], frame[at:]
}

// sendArray queues r with the JSON array of elements as its result;
// false if the connection is gone. An array of largeResult bytes or more
// is queued as the frame's head, the elements where they lie and the
// frame's tail: the bytes wire.Encode writes for the joined array, with
// neither the array nor the frame built (a state::list over 100,000 ×
// 4 KiB was a 420 MB array; docs/decisions.md D52). The elements must
// not change until written; the state store's never do. A smaller array,
// or one with an element that is not valid JSON (which send refuses, as
// it refused the joined array), is joined and sent as any result.
func (c *conn) sendArray(r wire.InvocationResult, elements []json.RawMessage) bool {
	if arrayLen(elements) < largeResult || !allValidElements(elements) {
		r.Result = joinArray(elements)
		return c.send(r)
	}
	head, tail := resultFrame(r)
	return c.out.push(wsbatch.Message{Head: head, Elements: elements, Tail: tail})
}

// arrayLen is the length of the JSON array of elements.
func arrayLen(elements []json.RawMessage) int {
	n := 2 + max(len(elements)-1, 0)
	for _, v := range elements {
		n += len(v)
	}
	return n
}

// allValidElements reports whether the array of elements is valid JSON,
// which send checks of every result.
func allValidElements(elements []json.RawMessage) bool {
	for _, v := range elements {
		if !wire.ValidElement(v) {
			return false
		}
	}
	return true
}

// readLoop reads and routes frames until the socket fails or is closed.
func (c *conn) readLoop() {
	for {
		kind, b, err := c.ws.ReadMessage()
		if err != nil {
			c.log.Debug("worker socket ended", zap.Error(err))
			return
		}
		if kind == websocket.BinaryMessage && isTelemetryFrame(b) {
			continue
		}
		if kind == websocket.TextMessage && !utf8.Valid(b) {
			// The engine's WebSocket library refuses a text message that is
			// not UTF-8 and the connection ends (close code 1007).
			c.log.Debug("text frame is not valid UTF-8; closing the connection")
			msg := websocket.FormatCloseMessage(websocket.CloseInvalidFramePayloadData, "invalid UTF-8")
			_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
			return
		}
		if kind == websocket.TextMessage && len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		m, err := wire.Decode(b)
		if err != nil {
			c.log.Debug("dropped undecodable frame", zap.Error(err))
			continue
		}
		c.srv.routeFrame(c, m, b)
	}
}

// writeLoop writes queued frames until the outbox is closed; what is
// queued at once goes out in one batch (docs/decisions.md D52). A failed
// write closes the socket, which ends the read loop and starts the
// cleanup.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	for range c.out.ready {
		frames, closed, closing := c.out.takeAll()
		if closed {
			return
		}
		if len(frames) > 0 {
			if err := wsbatch.WriteMessages(c.ws, c.nc, frames, writeWait); err != nil {
				c.log.Debug("write to worker failed", zap.Error(err))
				_ = c.ws.Close()
				c.out.close()
				return
			}
		}
		if closing {
			c.endConversation()
			return
		}
	}
}

// endConversation writes the close frame the engine sends when it ends a
// connection (a close frame without a status, as the engine's
// Close(None)). The read loop then ends with the worker's answering close
// frame, or after closeWait if it never answers.
func (c *conn) endConversation() {
	if err := c.ws.WriteControl(websocket.CloseMessage, nil, time.Now().Add(writeWait)); err != nil {
		c.log.Debug("close frame to worker failed", zap.Error(err))
		_ = c.ws.Close()
		return
	}
	_ = c.ws.SetReadDeadline(time.Now().Add(closeWait))
}

// closeWait bounds the wait for a worker's answer to the engine's close
// frame.
const closeWait = 10 * time.Second

// connect registers a new connection and greets it with workerregistered,
// its first frame.
func (s *Engine) connect(c *conn) {
	s.mu.Lock()
	s.connSeq++
	c.seq = s.connSeq
	s.workers[c.id] = c
	c.send(wire.WorkerRegistered{WorkerID: c.id, ReattachToken: c.token})
	s.notifyLocked()
	s.mu.Unlock()
	c.log.Info("worker connected", zap.String("remote_ip", c.ip))
	s.fire(triggerWorkersAvailable, map[string]any{"event": "worker_connected", "worker_id": c.id})
}

// cleanup runs the engine's disconnect cleanup once; concurrent callers
// wait until it is complete.
func (s *Engine) cleanup(c *conn) {
	c.cleanupOnce.Do(func() {
		s.mu.Lock()
		c.dead = true
		c.held = nil
		c.decideLocked()
		c.out.close()
		s.releaseFunctionsLocked(c)
		halted := s.haltLocked(c)
		s.releaseTriggersLocked(c)
		s.releaseWorkerNamesLocked(c)
		delete(s.workers, c.id)
		name := ""
		if c.meta.name != nil {
			name = *c.meta.name
		}
		s.notifyLocked()
		s.mu.Unlock()
		for _, inv := range halted {
			finish(inv, nil, errInvocationStopped)
		}
		c.log.Info("worker disconnected", zap.String("name", name))
		s.fire(triggerWorkersAvailable, map[string]any{"event": "worker_disconnected", "worker_id": c.id})
		close(c.cleaned)
	})
}

// reattach retires the previous connection of a reconnecting worker when it
// presents that connection's id and token; anything else is ignored
// silently. The new connection's later frames wait until the old
// connection's cleanup is complete.
func (s *Engine) reattach(c *conn, m wire.Reattach) {
	prev, ok := normalizeUUID(m.PreviousWorkerID)
	if !ok || prev == c.id {
		c.log.Debug("ignored reattach", zap.String("previous_worker_id", m.PreviousWorkerID))
		return
	}
	s.mu.Lock()
	old := s.workers[prev]
	s.mu.Unlock()
	if old == nil {
		return
	}
	if m.ReattachToken != old.token {
		c.log.Warn("ignored reattach with a wrong or missing token", zap.String("previous_worker_id", prev))
		return
	}
	c.log.Info("reattach: retiring the previous connection", zap.String("previous_worker_id", prev))
	_ = old.ws.Close()
	timer := time.NewTimer(reattachEvictTimeout)
	defer timer.Stop()
	select {
	case <-old.cleaned:
	case <-timer.C:
		s.cleanup(old)
	}
}

// telemetryPrefixes mark binary frames that carry OpenTelemetry data.
var telemetryPrefixes = [][]byte{[]byte("OTLP"), []byte("MTRC"), []byte("LOGS")}

func isTelemetryFrame(b []byte) bool {
	for _, p := range telemetryPrefixes {
		if bytes.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

// outbox is a connection's unbounded FIFO of encoded frames. Pushing never
// blocks, so the engine can queue frames for any connection while holding
// its registry lock.
type outbox struct {
	mu      sync.Mutex
	frames  []wsbatch.Message
	closed  bool
	closing bool          // a close frame follows the queued frames; nothing more is queued
	ready   chan struct{} // capacity 1: "there is something to look at"
}

func (o *outbox) push(m wsbatch.Message) bool {
	o.mu.Lock()
	if o.closed || o.closing {
		o.mu.Unlock()
		return false
	}
	o.frames = append(o.frames, m)
	o.mu.Unlock()
	o.signal()
	return true
}

// take returns every queued frame, and whether the outbox is closed.
func (o *outbox) take() ([]wsbatch.Message, bool) {
	frames, closed, _ := o.takeAll()
	return frames, closed
}

// takeAll is take that also tells whether a close frame follows the
// frames it returns.
func (o *outbox) takeAll() (frames []wsbatch.Message, closed, closing bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	frames = o.frames
	o.frames = nil
	return frames, o.closed, o.closing
}

// closeAfter ends the conversation: a close frame goes out after the
// frames already queued, and nothing queued later is sent.
func (o *outbox) closeAfter() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	o.signal()
}

// close discards queued frames and refuses new ones.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.frames = nil
	o.mu.Unlock()
	o.signal()
}

func (o *outbox) signal() {
	select {
	case o.ready <- struct{}{}:
	default:
	}
}
