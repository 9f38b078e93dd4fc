package iii

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wsbatch"
)

// connTiming holds one connection's limits, from Options.
type connTiming struct {
	maxFrame  int64
	ping      time.Duration // control ping period
	idle      time.Duration // read deadline after any inbound frame
	handshake time.Duration // bound on the wait for workerregistered
	write     time.Duration // deadline of each write
}

// conn is one WebSocket connection to the engine, with exactly one reader
// (the supervisor goroutine, inside serve) and one writer goroutine, as
// gorilla/websocket requires. Frames for it are queued with send; once the
// connection has ended send refuses them, so a reply never reaches a
// later connection.
type conn struct {
	ws     *websocket.Conn
	nc     *wsbatch.Conn // the socket under ws, for batched writes; nil when not dialled by this package
	timing connTiming
	opened time.Time

	wake       chan struct{} // a frame was queued (capacity 1)
	readerDone chan struct{} // closed when the read loop has returned
	writer     sync.WaitGroup

	mu       sync.Mutex
	queue    [][]byte
	sent     []func() // called once the frames queued with them have been written or dropped
	dead     bool
	cause    error // first write failure
	greeted  bool  // workerregistered arrived
	workerID string
}

func newConn(ws *websocket.Conn, nc *wsbatch.Conn, t connTiming) *conn {
	return &conn{ws: ws, nc: nc, timing: t, opened: time.Now(),
		wake: make(chan struct{}, 1), readerDone: make(chan struct{})}
}

// send queues one text frame. It reports false when the connection has
// ended.
func (cn *conn) send(frame []byte) bool { return cn.sendThen(frame, nil) }

// sendThen is send, calling sent (when not nil) once the frame has been
// written, or dropped with the connection; it is not called when
// sendThen reports false.
func (cn *conn) sendThen(frame []byte, sent func()) bool {
	cn.mu.Lock()
	if cn.dead {
		cn.mu.Unlock()
		return false
	}
	cn.queue = append(cn.queue, frame)
	if sent != nil {
		cn.sent = append(cn.sent, sent)
	}
	cn.mu.Unlock()
	select {
	case cn.wake <- struct{}{}:
	default:
	}
	return true
}

// greet records the engine's workerregistered.
func (cn *conn) greet(workerID string) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	cn.greeted, cn.workerID = true, workerID
}

// greeting reports the worker id the engine assigned, if it did.
func (cn *conn) greeting() (workerID string, greeted bool) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.workerID, cn.greeted
}

// serve runs the connection until it fails or ctx ends, handing every
// inbound message, as a reader of its bytes, to onMessage on the calling
// goroutine, and returns why it ended after the writer goroutine has
// stopped and the socket is closed. An error from onMessage is a failed
// read (the message cannot be read to its end): the connection ends.
func (cn *conn) serve(ctx context.Context, onMessage func(io.Reader) error) error {
	cn.writer.Add(1)
	go cn.writeLoop(ctx)
	readErr := cn.readLoop(onMessage)

	cn.mu.Lock()
	cn.dead, cn.queue = true, nil
	dropped := cn.sent
	cn.sent = nil
	cn.mu.Unlock()
	for _, f := range dropped {
		f()
	}
	close(cn.readerDone)
	cn.ws.Close()
	cn.writer.Wait()

	cn.mu.Lock()
	defer cn.mu.Unlock()
	// A writer that failed with "close sent" only ran into the close frame
	// the reader had already sent for its own failure (a frame over the
	// limit, the engine closing): the reader's error is the real cause.
	if cn.cause != nil && !errors.Is(cn.cause, websocket.ErrCloseSent) {
		return cn.cause
	}
	return readErr
}

// readLoop reads until the socket fails. The read deadline moves forward
// on every inbound frame, control frames included; until workerregistered
// arrives it is also bounded by the handshake timeout. A message above
// maxFrame fails the read (gorilla answers close 1009), also when it is
// read as a stream (docs/decisions.md D54): the stream cannot be
// resynchronised, so the connection ends and the supervisor reconnects.
// A message is read with NextReader, so a large one need not be held
// whole; what onMessage leaves unread is discarded by the next
// NextReader.
func (cn *conn) readLoop(onMessage func(io.Reader) error) error {
	cn.ws.SetReadLimit(cn.timing.maxFrame)
	cn.ws.SetPongHandler(func(string) error {
		cn.extendDeadline()
		return nil
	})
	cn.ws.SetPingHandler(func(data string) error {
		cn.extendDeadline()
		// WriteControl may run beside the writer goroutine (gorilla allows
		// it); the engine never pings, so this is only for other peers.
		err := cn.ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(cn.timing.write))
		if errors.Is(err, websocket.ErrCloseSent) || isTimeout(err) {
			return nil
		}
		return err
	})
	cn.extendDeadline()
	for {
		_, r, err := cn.ws.NextReader()
		if err == nil {
			err = onMessage(r)
		}
		if err != nil {
			_, greeted := cn.greeting()
			switch {
			case errors.Is(err, websocket.ErrReadLimit):
				return fmt.Errorf("read: inbound message larger than %d bytes: %w", cn.timing.maxFrame, err)
			case isTimeout(err) && !greeted:
				return fmt.Errorf("read: no workerregistered within %v: %w", cn.timing.handshake, err)
			case isTimeout(err):
				return fmt.Errorf("read: engine silent for %v: %w", cn.timing.idle, err)
			}
			return fmt.Errorf("read: %w", err)
		}
		cn.extendDeadline()
	}
}

func (cn *conn) extendDeadline() {
	d := time.Now().Add(cn.timing.idle)
	if _, greeted := cn.greeting(); !greeted {
		if h := cn.opened.Add(cn.timing.handshake); h.Before(d) {
			d = h
		}
	}
	cn.ws.SetReadDeadline(d)
}

// writeLoop is the connection's only writer of data frames: queued frames
// and keepalive pings. When ctx ends (Close) it flushes what is queued,
// sends a normal close frame and closes the socket, which ends the reader.
func (cn *conn) writeLoop(ctx context.Context) {
	defer cn.writer.Done()
	ping := time.NewTicker(cn.timing.ping)
	defer ping.Stop()
	for {
		select {
		case <-cn.wake:
			if err := cn.flush(); err != nil {
				cn.fail(err)
				return
			}
		case <-ping.C:
			if err := cn.write(websocket.PingMessage, nil); err != nil {
				cn.fail(fmt.Errorf("ping: %w", err))
				return
			}
		case <-ctx.Done():
			if cn.flush() == nil {
				cn.write(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			}
			cn.ws.Close()
			return
		case <-cn.readerDone:
			return
		}
	}
}

// flush writes every queued frame, including frames queued meanwhile:
// what is queued at once goes out in one batch (docs/decisions.md D52).
func (cn *conn) flush() error {
	for {
		cn.mu.Lock()
		q, sent := cn.queue, cn.sent
		cn.queue, cn.sent = nil, nil
		cn.mu.Unlock()
		if len(q) == 0 {
			return nil
		}
		err := wsbatch.WriteText(cn.ws, cn.nc, q, cn.timing.write)
		for _, f := range sent {
			f()
		}
		if err != nil {
			return err
		}
	}
}

func (cn *conn) write(kind int, data []byte) error {
	if err := cn.ws.SetWriteDeadline(time.Now().Add(cn.timing.write)); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := cn.ws.WriteMessage(kind, data); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// fail records the writer's error and closes the socket so the reader
// returns too. A failure after the reader ended is a consequence, not the
// cause, and is not recorded.
func (cn *conn) fail(err error) {
	cn.mu.Lock()
	if cn.cause == nil && !cn.dead {
		cn.cause = err
	}
	cn.mu.Unlock()
	cn.ws.Close()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
