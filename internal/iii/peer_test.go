package iii

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// waitFor bounds every wait on the peer; tests normally finish far sooner.
const waitFor = 5 * time.Second

// peer is a scripted stand-in for the engine: it accepts WebSocket
// connections, greets each with workerregistered, records every frame the
// client sends and lets a test answer them. It routes nothing; it is a
// recorder, not an engine.
type peer struct {
	t        testing.TB
	srv      *httptest.Server
	pipes    *pipeListener // in place of srv, for a client on a fake clock (newPipePeer)
	upgrader websocket.Upgrader
	wg       sync.WaitGroup // connection handlers

	mu      sync.Mutex
	changed chan struct{}
	conns   []*peerConn
	frames  []received
	script  func(pc *peerConn, m wire.Message)
	noPong  bool // do not answer control pings (simulates a silent engine)
	noGreet bool // do not send workerregistered
	pings   int  // control pings received
	badOut  []string
}

// peerConn is one accepted connection; n counts from 1.
type peerConn struct {
	p        *peer
	n        int
	ws       *websocket.Conn
	wmu      sync.Mutex
	workerID string
	token    string
	ended    bool // the read loop has returned (guarded by p.mu)

	// The data messages of the connection as they went over the socket,
	// in order, for transcripts (guarded by p.mu).
	fromClient [][]byte
	toClient   [][]byte
}

// received is one frame the client sent, with the connection it came on.
type received struct {
	conn int
	msg  wire.Message
}

func newPeer(t testing.TB) *peer {
	p := &peer{t: t, changed: make(chan struct{})}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.close)
	return p
}

// url is the WebSocket address of the peer.
func (p *peer) url() string {
	if p.pipes != nil {
		return pipeURL
	}
	return "ws" + strings.TrimPrefix(p.srv.URL, "http")
}

// workerID and token are the identities the peer gives connection n.
func workerID(n int) string { return fmt.Sprintf("%08d-0000-4000-8000-000000000000", n) }
func token(n int) string    { return fmt.Sprintf("%08d-0000-4000-9000-000000000000", n) }

func (p *peer) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := p.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	p.wg.Add(1)
	defer p.wg.Done()
	p.mu.Lock()
	pc := &peerConn{p: p, n: len(p.conns) + 1, ws: ws}
	pc.workerID, pc.token = workerID(pc.n), token(pc.n)
	p.conns = append(p.conns, pc)
	greet, noPong := !p.noGreet, p.noPong
	p.notifyLocked()
	p.mu.Unlock()
	defer func() {
		ws.Close()
		p.mu.Lock()
		pc.ended = true
		p.notifyLocked()
		p.mu.Unlock()
	}()

	ws.SetPingHandler(func(data string) error {
		p.mu.Lock()
		p.pings++
		p.notifyLocked()
		p.mu.Unlock()
		if noPong {
			return nil
		}
		pc.wmu.Lock()
		defer pc.wmu.Unlock()
		return ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	if greet {
		pc.send(wire.WorkerRegistered{WorkerID: pc.workerID, ReattachToken: pc.token})
	}
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		m, err := wire.Decode(data)
		p.mu.Lock()
		pc.fromClient = append(pc.fromClient, data)
		if err != nil {
			p.badOut = append(p.badOut, fmt.Sprintf("%s: %v", data, err))
			p.mu.Unlock()
			continue
		}
		p.frames = append(p.frames, received{conn: pc.n, msg: m})
		script := p.script
		p.notifyLocked()
		p.mu.Unlock()
		if script != nil {
			script(pc, m)
		}
	}
}

func (p *peer) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// setScript installs the hook called with every frame the client sends.
func (p *peer) setScript(f func(pc *peerConn, m wire.Message)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.script = f
}

// wait blocks until cond (called under the peer's lock) holds.
func (p *peer) wait(what string, cond func() bool) {
	p.t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		ok, changed := cond(), p.changed
		p.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			p.mu.Lock()
			defer p.mu.Unlock()
			p.t.Fatalf("timed out waiting for %s; frames: %s", what, p.dumpLocked())
		}
	}
}

// waitFrame returns the first recorded frame that matches.
func (p *peer) waitFrame(what string, match func(received) bool) received {
	p.t.Helper()
	var got received
	p.wait(what, func() bool {
		for _, f := range p.frames {
			if match(f) {
				got = f
				return true
			}
		}
		return false
	})
	return got
}

// waitConn returns connection n once it has been accepted.
func (p *peer) waitConn(n int) *peerConn {
	p.t.Helper()
	p.wait(fmt.Sprintf("connection %d", n), func() bool { return len(p.conns) >= n })
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns[n-1]
}

// framesOn returns the frames recorded on connection n so far.
func (p *peer) framesOn(n int) []wire.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []wire.Message
	for _, f := range p.frames {
		if f.conn == n {
			out = append(out, f.msg)
		}
	}
	return out
}

// waitEnded waits until the client's side of pc is gone and every frame it
// sent has been recorded.
func (p *peer) waitEnded(pc *peerConn) {
	p.t.Helper()
	p.wait(fmt.Sprintf("end of connection %d", pc.n), func() bool { return pc.ended })
}

// connCount returns how many connections were accepted.
func (p *peer) connCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// dropAll closes every connection abruptly, forcing reconnects.
func (p *peer) dropAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.conns {
		pc.ws.Close()
	}
}

func (p *peer) dumpLocked() string {
	var b strings.Builder
	for _, f := range p.frames {
		data, _ := wire.Encode(f.msg)
		fmt.Fprintf(&b, "\n  conn %d: %s", f.conn, data)
	}
	return b.String()
}

func (p *peer) close() {
	p.dropAll()
	if p.pipes != nil {
		p.pipes.close()
	} else {
		p.srv.Close()
	}
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, bad := range p.badOut {
		p.t.Errorf("client sent an undecodable frame: %s", bad)
	}
}

// send writes one frame to the client.
func (pc *peerConn) send(m wire.Message) {
	data, err := wire.Encode(m)
	if err != nil {
		pc.p.t.Errorf("peer: %v", err)
		return
	}
	pc.sendRaw(websocket.TextMessage, data)
}

// sendRaw writes one message of the given kind, whatever it contains.
func (pc *peerConn) sendRaw(kind int, data []byte) {
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	pc.p.mu.Lock()
	pc.toClient = append(pc.toClient, data)
	pc.p.mu.Unlock()
	pc.ws.SetWriteDeadline(time.Now().Add(time.Second))
	pc.ws.WriteMessage(kind, data) // a closed connection is the test's business
}
