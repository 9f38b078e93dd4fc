package interop

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// frameTap is a WebSocket relay between workers and the engine that keeps
// every message each way, in order, so a test can wait for a frame to
// have been passed on. It relays every path (the worker socket and /otel)
// and is closed in t.Cleanup.
type frameTap struct {
	t      *testing.T
	srv    *httptest.Server
	target string // the engine's ws://host:port

	mu      sync.Mutex
	frames  []tapFrame
	changed chan struct{} // closed and replaced on every frame
	conns   []*websocket.Conn
	wg      sync.WaitGroup
}

// tapFrame is one relayed message.
type tapFrame struct {
	Up     bool   // from the worker to the engine
	Path   string // "/" or "/otel"
	Binary bool
	Data   []byte
}

// newFrameTap starts a relay to the engine at engineURL.
func newFrameTap(t *testing.T, engineURL string) *frameTap {
	t.Helper()
	tp := &frameTap{t: t, target: engineURL, changed: make(chan struct{})}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	tp.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		engineSide, _, err := websocket.DefaultDialer.Dial(tp.target+req.URL.Path, nil)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		workerSide, err := up.Upgrade(rw, req, nil)
		if err != nil {
			_ = engineSide.Close()
			return
		}
		tp.mu.Lock()
		tp.conns = append(tp.conns, workerSide, engineSide)
		tp.wg.Add(2)
		tp.mu.Unlock()
		path := req.URL.Path
		go tp.pipe(workerSide, engineSide, true, path)
		go tp.pipe(engineSide, workerSide, false, path)
	}))
	t.Cleanup(tp.close)
	return tp
}

// url is the relay's address, to give a worker instead of the engine's.
func (tp *frameTap) url() string { return "ws" + strings.TrimPrefix(tp.srv.URL, "http") }

// pipe relays src to dst until either ends, then closes both.
func (tp *frameTap) pipe(src, dst *websocket.Conn, up bool, path string) {
	defer tp.wg.Done()
	defer func() { _ = src.Close(); _ = dst.Close() }()
	for {
		kind, b, err := src.ReadMessage()
		if err != nil {
			return
		}
		tp.mu.Lock()
		tp.frames = append(tp.frames, tapFrame{Up: up, Path: path, Binary: kind == websocket.BinaryMessage, Data: b})
		close(tp.changed)
		tp.changed = make(chan struct{})
		tp.mu.Unlock()
		if err := dst.WriteMessage(kind, b); err != nil {
			return
		}
	}
}

// await waits until a relayed frame matches and returns it. The frame is
// kept just before it is written on, and a pipe reads its next frame only
// after that write: whatever the worker sends on the same socket later
// reaches the engine after it.
func (tp *frameTap) await(what string, match func(tapFrame) bool) tapFrame {
	tp.t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	seen := 0
	for {
		tp.mu.Lock()
		frames, changed := tp.frames[seen:], tp.changed
		tp.mu.Unlock()
		for _, f := range frames {
			if match(f) {
				return f
			}
		}
		seen += len(frames)
		select {
		case <-changed:
		case <-deadline.C:
			tp.t.Fatalf("relay: no %s within %v", what, waitTimeout)
		}
	}
}

// message is the type and invocation id of a JSON frame.
func (f tapFrame) message() (typ, invocationID string) {
	var m struct {
		Type         string `json:"type"`
		InvocationID string `json:"invocation_id"`
	}
	if f.Binary || json.Unmarshal(f.Data, &m) != nil {
		return "", ""
	}
	return m.Type, m.InvocationID
}

func (tp *frameTap) close() {
	tp.srv.Close()
	tp.mu.Lock()
	for _, c := range tp.conns {
		_ = c.Close()
	}
	tp.mu.Unlock()
	tp.wg.Wait()
}
