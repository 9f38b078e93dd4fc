package features

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"
)

// recordingEngine is a minimal engine that only greets each connection
// with workerregistered and records every frame the worker sends, to check
// the handshake order (docs/decisions.md D12). It answers nothing else.
type recordingEngine struct {
	srv     *httptest.Server
	mu      sync.Mutex
	conns   []*recordedConn
	changed chan struct{}
}

// recordedConn is one worker connection and what it sent, in order.
type recordedConn struct {
	ws       *websocket.Conn
	workerID string
	token    string
	frames   []json.RawMessage
}

func newRecordingEngine() *recordingEngine {
	e := &recordingEngine{changed: make(chan struct{}, 1)}
	up := websocket.Upgrader{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		ws, err := up.Upgrade(rw, req, nil)
		if err != nil {
			return
		}
		c := &recordedConn{ws: ws, workerID: uuid.NewString(), token: uuid.NewString()}
		e.mu.Lock()
		e.conns = append(e.conns, c)
		e.mu.Unlock()
		e.signal()
		hello, _ := json.Marshal(map[string]string{"type": "workerregistered", "worker_id": c.workerID, "reattach_token": c.token})
		if ws.WriteMessage(websocket.TextMessage, hello) != nil {
			return
		}
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			e.mu.Lock()
			c.frames = append(c.frames, msg)
			e.mu.Unlock()
			e.signal()
		}
	}))
	return e
}

func (e *recordingEngine) url() string { return "ws" + strings.TrimPrefix(e.srv.URL, "http") }

func (e *recordingEngine) signal() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// frames waits until connection n (1-based) has sent at least want frames
// and returns them all.
func (e *recordingEngine) frames(n, want int, timeout time.Duration) ([]json.RawMessage, *recordedConn, error) {
	deadline := time.After(timeout)
	for {
		e.mu.Lock()
		var c *recordedConn
		var got []json.RawMessage
		if n <= len(e.conns) {
			c = e.conns[n-1]
			got = append(got, c.frames...)
		}
		e.mu.Unlock()
		if c != nil && len(got) >= want {
			return got, c, nil
		}
		select {
		case <-e.changed: // a connection or a frame arrived (the signal is kept until taken)
		case <-deadline:
			return nil, nil, fmt.Errorf("connection %d: %d frames within %s, want %d: %s", n, len(got), timeout, want, got)
		}
	}
}

// drop closes connection n abruptly, as a crashed engine would.
func (e *recordingEngine) drop(n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n > len(e.conns) {
		return fmt.Errorf("no connection %d", n)
	}
	return e.conns[n-1].ws.UnderlyingConn().Close()
}

func (e *recordingEngine) close() {
	e.mu.Lock()
	for _, c := range e.conns {
		c.ws.UnderlyingConn().Close() //nolint:errcheck // tearing down
	}
	e.mu.Unlock()
	e.srv.Close()
}

// silentListener accepts TCP connections and counts them, to prove a
// command connected to nothing.
type silentListener struct {
	ln       net.Listener
	accepted atomic.Int64
}

func newSilentListener() (*silentListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &silentListener{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.accepted.Add(1)
			c.Close() //nolint:errcheck // only counted
		}
	}()
	return l, nil
}

func (l *silentListener) url() string { return "ws://" + l.ln.Addr().String() }
