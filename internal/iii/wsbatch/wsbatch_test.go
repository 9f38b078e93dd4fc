package wsbatch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const wait = 5 * time.Second

// recorder is a socket that keeps a copy of every write, to see frames
// and system calls as they leave.
type recorder struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.writes = append(r.writes, bytes.Clone(p))
	r.mu.Unlock()
	return r.Conn.Write(p)
}

// take returns the writes so far and forgets them.
func (r *recorder) take() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.writes
	r.writes = nil
	return w
}

// hijackRecorder hands the hijacked socket over as a recorder.
type hijackRecorder struct {
	http.ResponseWriter
	rec chan *recorder
}

func (h hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	r := &recorder{Conn: nc}
	h.rec <- r
	return r, brw, nil
}

// pair is one WebSocket connection set up as package iii (client) and the
// engine (server) set theirs up, with the sockets under both recorded.
type pair struct {
	client, server       *websocket.Conn
	clientNC, serverNC   *Conn
	clientRec, serverRec *recorder
}

func newPair(t *testing.T) *pair {
	t.Helper()
	p := &pair{}
	accepted := make(chan *websocket.Conn, 1)
	recs := make(chan *recorder, 1)
	up := websocket.Upgrader{WriteBufferSize: FrameBufferSize, WriteBufferPool: BufferPool}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bw := NewResponseWriter(hijackRecorder{ResponseWriter: w, rec: recs})
		ws, err := up.Upgrade(bw, r, nil)
		if err != nil {
			t.Errorf("upgrade: %v", err)
			return
		}
		p.serverNC = bw.Conn()
		accepted <- ws
	}))
	t.Cleanup(srv.Close)
	d := websocket.Dialer{WriteBufferSize: FrameBufferSize, WriteBufferPool: BufferPool,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			p.clientRec = &recorder{Conn: nc}
			p.clientNC = Dial(p.clientRec)
			return p.clientNC, nil
		}}
	client, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.client = client
	select {
	case p.server = <-accepted:
	case <-time.After(wait):
		t.Fatal("the server never accepted")
	}
	p.serverRec = <-recs
	t.Cleanup(func() {
		client.Close()
		p.server.Close()
	})
	p.clientRec.take() // the upgrade request
	p.serverRec.take() // the upgrade response
	if p.serverNC == nil || p.serverNC.Conn != p.serverRec {
		t.Fatal("the upgraded connection is not the hijacked socket as a Conn")
	}
	return p
}

// side is one end of a pair as a writer: its connection, the socket
// under it, what it wrote, and the other end, which reads.
type side struct {
	name     string
	from, to *websocket.Conn
	nc       *Conn
	rec      *recorder
}

func (p *pair) sides() []side {
	return []side{
		{"client", p.client, p.server, p.clientNC, p.clientRec},
		{"server", p.server, p.client, p.serverNC, p.serverRec},
	}
}

// frame is one WebSocket frame header as it left.
type frame struct {
	fin    bool
	opcode byte
	length int
}

// frames parses the frames in what was written; payloads are skipped.
func frames(t *testing.T, written []byte) []frame {
	t.Helper()
	var out []frame
	for len(written) > 0 {
		if len(written) < 2 {
			t.Fatalf("a truncated frame header: % x", written)
		}
		f := frame{fin: written[0]&0x80 != 0, opcode: written[0] & 0x0f}
		masked := written[1]&0x80 != 0
		n, head := int(written[1]&0x7f), 2
		switch n {
		case 126:
			n, head = int(binary.BigEndian.Uint16(written[2:])), 4
		case 127:
			n, head = int(binary.BigEndian.Uint64(written[2:])), 10
		}
		if masked {
			head += 4
		}
		f.length = n
		out = append(out, f)
		if len(written) < head+n {
			t.Fatalf("frame of %d bytes truncated at %d", n, len(written)-head)
		}
		written = written[head+n:]
	}
	return out
}

func readText(t *testing.T, ws *websocket.Conn) string {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	kind, b, err := ws.ReadMessage()
	if err != nil || kind != websocket.TextMessage {
		t.Fatalf("read: kind %d, %v", kind, err)
	}
	return string(b)
}

// payload is n bytes that say where they are, so a lost, repeated or
// reordered piece shows.
func payload(tag string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s-%d;", tag, i)
	}
	return b.String()[:n]
}

// A reply of a few KiB leaves as one frame in one write from either end:
// gorilla's default 4 KiB buffer split a client's 4.2 KB reply into two
// frames and two system calls.
func TestMessageIsOneFrameAndOneWrite(t *testing.T) {
	p := newPair(t)
	for _, n := range []int{4200, 8 << 10, FrameBufferSize} {
		for _, side := range p.sides() {
			msg := payload(side.name, n)
			if err := WriteText(side.from, side.nc, [][]byte{[]byte(msg)}, wait); err != nil {
				t.Fatal(err)
			}
			if got := readText(t, side.to); got != msg {
				t.Fatalf("%s sent %d bytes, %d arrived, or not the same", side.name, n, len(got))
			}
			writes := side.rec.take()
			if len(writes) != 1 {
				t.Errorf("%s: a %d-byte message took %d writes, want 1", side.name, n, len(writes))
			}
			want := []frame{{fin: true, opcode: websocket.TextMessage, length: n}}
			if got := frames(t, bytes.Join(writes, nil)); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: a %d-byte message left as frames %+v, want %+v", side.name, n, got, want)
			}
		}
	}
}

// Frames queued together leave in one write, in order, each whole; the
// batch's buffer goes back to its pool.
func TestQueuedFramesLeaveInOneWrite(t *testing.T) {
	p := newPair(t)
	var queue [][]byte
	for i := range 12 {
		queue = append(queue, []byte(payload(fmt.Sprint(i), 900+i*300)))
	}
	for _, side := range p.sides() {
		if err := WriteText(side.from, side.nc, queue, wait); err != nil {
			t.Fatal(err)
		}
		for i, want := range queue {
			if got := readText(t, side.to); got != string(want) {
				t.Fatalf("%s: message %d arrived as %.40q…, want %.40q…", side.name, i, got, want)
			}
		}
		if n := len(side.rec.take()); n != 1 {
			t.Errorf("%s: %d queued frames took %d writes, want 1", side.name, len(queue), n)
		}
		if side.nc.held != nil {
			t.Errorf("%s: the batch buffer is still held after the batch", side.name)
		}
	}
}

// A message larger than the write buffer still arrives whole; a client
// sends it as frames no larger than the buffer, so no connection ever
// holds a buffer the size of its largest message.
func TestLargeMessageArrivesWhole(t *testing.T) {
	p := newPair(t)
	msg := payload("big", 3*FrameBufferSize+5)
	small := payload("small", 100)
	go func() {
		// Queued with small messages, so it goes through a batch too.
		_ = WriteText(p.client, p.clientNC, [][]byte{[]byte(small), []byte(msg), []byte(small)}, wait)
	}()
	for _, want := range []string{small, msg, small} {
		if got := readText(t, p.server); got != want {
			t.Fatalf("arrived %d bytes, want %d", len(got), len(want))
		}
	}
	var largest int
	for _, f := range frames(t, bytes.Join(p.clientRec.take(), nil)) {
		largest = max(largest, f.length)
	}
	if largest > FrameBufferSize {
		t.Errorf("the client sent a frame of %d bytes, over its %d-byte buffer", largest, FrameBufferSize)
	}
}

// A control frame written beside a batch (gorilla's pong from the read
// loop) joins it or follows it; nothing is lost or torn.
func TestControlFrameBesideABatch(t *testing.T) {
	p := newPair(t)
	pings := make(chan string, 64)
	p.server.SetPingHandler(func(data string) error {
		pings <- data
		return nil
	})
	var queue [][]byte
	for i := range 32 {
		queue = append(queue, []byte(payload(fmt.Sprint(i), 3000)))
	}
	done := make(chan error, 1)
	go func() {
		for i := range 16 {
			if err := p.client.WriteControl(websocket.PingMessage, []byte(fmt.Sprint(i)), time.Now().Add(wait)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 4 {
		if err := WriteText(p.client, p.clientNC, queue, wait); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Every ping was written before this, so the server has handled them
	// all once it reads it.
	if err := WriteText(p.client, p.clientNC, [][]byte{[]byte("end")}, wait); err != nil {
		t.Fatal(err)
	}
	for round := range 4 {
		for i, want := range queue {
			if got := readText(t, p.server); got != string(want) {
				t.Fatalf("round %d message %d arrived torn or out of order", round, i)
			}
		}
	}
	if got := readText(t, p.server); got != "end" {
		t.Fatalf("last message %.40q, want end", got)
	}
	close(pings)
	var got []string
	for data := range pings {
		got = append(got, data)
	}
	if want := strings.Fields("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pings arrived as %v, want %v", got, want)
	}
}

// A message given as pieces arrives as their concatenation, in order with
// whole frames batched around it, from either end.
func TestMessageInPiecesArrivesWhole(t *testing.T) {
	p := newPair(t)
	head, body, tail := []byte(`{"result":`), []byte(`"`+payload("body", 3*FrameBufferSize)+`"`), []byte(`}`)
	for _, side := range p.sides() {
		small := Message{Head: []byte(payload(side.name, 500))}
		msgs := []Message{small, {Head: head, Body: body, Tail: tail}, small}
		done := make(chan error, 1)
		go func() { done <- WriteMessages(side.from, side.nc, msgs, wait) }()
		for i, want := range []string{string(small.Head), string(head) + string(body) + string(tail), string(small.Head)} {
			if got := readText(t, side.to); got != want {
				t.Fatalf("%s: message %d arrived as %d bytes, want %d", side.name, i, len(got), len(want))
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// A message whose result is given as array elements arrives as the
// joined array between its head and tail, whether the elements are
// smaller than the write buffer or over twice its size, and an empty
// list arrives as [].
func TestMessageWithElementsArrivesAsTheJoinedArray(t *testing.T) {
	p := newPair(t)
	head, tail := []byte(`{"result":`), []byte(`}`)
	elements := []json.RawMessage{[]byte(`1`), []byte(`"` + payload("big", 3*FrameBufferSize) + `"`), []byte(`{"a":null}`)}
	for range 40 {
		elements = append(elements, []byte(`"`+payload("small", 4096)+`"`))
	}
	var joined []string
	for _, v := range elements {
		joined = append(joined, string(v))
	}
	for _, side := range p.sides() {
		small := Message{Head: []byte(payload(side.name, 500))}
		msgs := []Message{small, {Head: head, Elements: elements, Tail: tail}, {Head: head, Elements: []json.RawMessage{}, Tail: tail}}
		done := make(chan error, 1)
		go func() { done <- WriteMessages(side.from, side.nc, msgs, wait) }()
		for i, want := range []string{string(small.Head), `{"result":[` + strings.Join(joined, ",") + `]}`, `{"result":[]}`} {
			if got := readText(t, side.to); got != want {
				t.Fatalf("%s: message %d arrived as %d bytes, want %d (or they differ)", side.name, i, len(got), len(want))
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// A message's write deadline leaves a peer time to take it at
// minWriteRate: a frame of a few KiB gets the plain wait, a state::list of
// 68 MiB over two minutes more, counted over its pieces and elements.
func TestWriteDeadlineGrowsWithTheMessage(t *testing.T) {
	const wait = 10 * time.Second
	small := writeDeadline(Message{Head: make([]byte, 4<<10)}, wait)
	if d := time.Until(small); d > wait || d < wait-time.Second {
		t.Errorf("a 4 KiB frame may take %s, want %s", d, wait)
	}
	elements := make([]json.RawMessage, 272)
	for i := range elements {
		elements[i] = make(json.RawMessage, 256<<10)
	}
	large := writeDeadline(Message{Head: []byte(`{"result":`), Elements: elements, Tail: []byte(`}`)}, wait)
	if d := time.Until(large); d < wait+136*time.Second-time.Second {
		t.Errorf("a 68 MiB listing may take %s, want at least %s (%d KiB/s)", d, wait+136*time.Second, minWriteRate>>10)
	}
}
