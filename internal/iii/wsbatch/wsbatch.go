// Package wsbatch is how both ends of an iii connection put frames on the
// wire: a message of up to FrameBufferSize bytes leaves as one frame and
// one write(2), several queued messages leave together in one write(2),
// and an idle connection holds no write buffer (docs/decisions.md D52).
//
// gorilla/websocket frames a message in its write buffer: a client masks
// the payload there, so a message longer than the buffer leaves as
// several frames, each its own system call. The buffer comes from
// BufferPool for the time of one message, so it can be large without
// being pinned by every connection. Batching happens below gorilla: the
// socket it writes to is a Conn, which the one writer goroutine asks to
// hold its writes while it writes a queue of frames, then to put them on
// the wire at once.
package wsbatch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// FrameBufferSize is the write buffer gorilla frames a message in, for
// the dialer (WriteBufferSize) and the upgrader alike. A reply of a few
// KiB (a skill body) is one frame; a larger message is sent as frames of
// this size, which a WebSocket peer reassembles.
const FrameBufferSize = 64 << 10

// BufferPool lends gorilla its write buffer for one message at a time
// (Dialer.WriteBufferPool, Upgrader.WriteBufferPool): only connections
// writing at this moment hold one. Every user sets WriteBufferSize to
// FrameBufferSize, so every buffer in the pool has the same size.
var BufferPool websocket.BufferPool = &sync.Pool{}

// batchPool holds the buffers of batches under way.
var batchPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, FrameBufferSize) }}

// Conn is a network connection whose writes can be held while a batch of
// frames is written, then sent together. Outside a batch a write goes
// straight to the socket. Its methods are safe for concurrent use:
// gorilla's WriteControl (a pong from the read loop) may write beside the
// writer goroutine, and joins the batch under way.
type Conn struct {
	net.Conn
	mu   sync.Mutex
	held *bufio.Writer // non-nil while a batch is under way
}

// Write sends p, or adds it to the batch under way. A batch larger than
// FrameBufferSize is sent as it fills.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held != nil {
		return c.held.Write(p)
	}
	return c.Conn.Write(p)
}

// hold starts a batch.
func (c *Conn) hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = batchPool.Get().(*bufio.Writer)
		c.held.Reset(c.Conn)
	}
}

// release sends what the batch holds with one write, under the write
// deadline the last frame set, and ends it.
func (c *Conn) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		return nil
	}
	err := c.held.Flush()
	c.held.Reset(nil) // the pooled buffer must not keep the socket
	batchPool.Put(c.held)
	c.held = nil
	return err
}

// WriteText writes frames as text messages in order, each under its own
// write deadline of now+wait. Several frames go out as one batch when nc
// is the connection ws writes to; a lone frame is written at once, not
// copied. nc may be nil (a socket this package did not open): frames are
// then written one by one.
func WriteText(ws *websocket.Conn, nc *Conn, frames [][]byte, wait time.Duration) error {
	return writeBatch(nc, len(frames), func(i int) error { return write(ws, Message{Head: frames[i]}, wait) })
}

// Message is one text message written from up to three pieces, in order:
// a frame's head, a body that is written from where it lies, and its
// tail. A frame built whole is all Head. A large result (state::list over
// a big scope) is sent as the frame's head, the result and the frame's
// tail, so the writer never holds a second copy of it: gorilla sends a
// body over twice its write buffer as a frame of its own, unbuffered.
type Message struct {
	Head, Body, Tail []byte
	// Elements, when not nil, are JSON values written after Body as one
	// array ('[', the values separated by ',', ']'), each from where it
	// lies: a state::list result is sent from the stored values without
	// joining them first (docs/decisions.md D52). The values must not
	// change until the message is written.
	Elements []json.RawMessage
}

// WriteMessages is WriteText for messages given as pieces.
func WriteMessages(ws *websocket.Conn, nc *Conn, msgs []Message, wait time.Duration) error {
	return writeBatch(nc, len(msgs), func(i int) error { return write(ws, msgs[i], wait) })
}

// writeBatch runs writeOne for messages 0..n-1, held as one batch when
// there are several and the socket is a Conn.
func writeBatch(nc *Conn, n int, writeOne func(i int) error) (err error) {
	if nc != nil && n > 1 {
		nc.hold()
		defer func() {
			if rerr := nc.release(); rerr != nil && err == nil {
				err = fmt.Errorf("write: %w", rerr)
			}
		}()
	}
	for i := range n {
		if err := writeOne(i); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return nil
}

// write sends one message under a fresh deadline (writeDeadline): a
// whole frame with WriteMessage (one frame, one write), pieces through
// one NextWriter.
func write(ws *websocket.Conn, m Message, wait time.Duration) error {
	if err := ws.SetWriteDeadline(writeDeadline(m, wait)); err != nil {
		return err
	}
	if m.Body == nil && m.Tail == nil && m.Elements == nil {
		return ws.WriteMessage(websocket.TextMessage, m.Head)
	}
	w, err := ws.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	if err := writePieces(w, m.Head, m.Body); err != nil {
		return err
	}
	if m.Elements != nil {
		if err := writeArray(w, m.Elements); err != nil {
			return err
		}
	}
	if err := writePieces(w, m.Tail); err != nil {
		return err
	}
	return w.Close()
}

// minWriteRate is the slowest a peer may take a large message: the
// deadline of a message grows by a second for each minWriteRate bytes.
const minWriteRate = 512 << 10

// writeDeadline is when a message must be written by: wait from now, as
// for any frame, plus a second for every minWriteRate bytes it carries. A
// fixed bound suited a frame of a few KiB but not a state::list of 68 MiB
// to a worker that parses it as it reads: under load the engine gave up
// after 10 s and dropped the worker's connection, so the listing never
// arrived (TestListingAScopeOver64MiBKeepsTheConnection, docs/protocol.md).
func writeDeadline(m Message, wait time.Duration) time.Time {
	n := len(m.Head) + len(m.Body) + len(m.Tail)
	for _, e := range m.Elements {
		n += len(e) + 1
	}
	return time.Now().Add(wait + time.Duration(n/minWriteRate)*time.Second)
}

// writePieces writes each piece in turn.
func writePieces(w io.Writer, pieces ...[]byte) error {
	for _, piece := range pieces {
		if _, err := w.Write(piece); err != nil {
			return err
		}
	}
	return nil
}

var (
	arrayOpen  = []byte{'['}
	arrayComma = []byte{','}
	arrayClose = []byte{']'}
)

// writeArray writes values as one JSON array. gorilla copies the small
// pieces into its write buffer and sends a value over twice the buffer as
// a frame of its own, so nothing here holds the array whole.
func writeArray(w io.Writer, values []json.RawMessage) error {
	if err := writePieces(w, arrayOpen); err != nil {
		return err
	}
	for i, v := range values {
		if i > 0 {
			if err := writePieces(w, arrayComma); err != nil {
				return err
			}
		}
		if err := writePieces(w, v); err != nil {
			return err
		}
	}
	return writePieces(w, arrayClose)
}

// Dial wraps a freshly dialled socket, for a websocket.Dialer's
// NetDialContext to return.
func Dial(nc net.Conn) *Conn { return &Conn{Conn: nc} }

// ResponseWriter wraps w so that the connection gorilla's Upgrader
// hijacks from it is a Conn; Conn reports it once Upgrade has returned.
type ResponseWriter struct {
	http.ResponseWriter
	conn *Conn
}

// NewResponseWriter wraps w for Upgrade.
func NewResponseWriter(w http.ResponseWriter) *ResponseWriter {
	return &ResponseWriter{ResponseWriter: w}
}

// Hijack hands the connection to the caller (gorilla's Upgrader) as a
// Conn.
func (w *ResponseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.conn = Dial(nc)
	return w.conn, brw, nil
}

// Conn is the hijacked connection, or nil before Hijack.
func (w *ResponseWriter) Conn() *Conn { return w.conn }
