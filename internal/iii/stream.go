package iii

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// A large result read as it arrives (docs/decisions.md D54): CallEach
// asks for a result that is a JSON array, and the read loop hands its
// elements over one at a time while it reads the frame, so a 420 MB
// state::list is never held whole. The read loop copies the frame's rest
// into a spool; the caller's goroutine splits it into elements and hands
// each to the caller's function: the reader never runs the caller's code,
// and never waits for it either (spool.go).

// ErrNotArray is CallEach's error for a result that is neither a JSON
// array nor absent.
var ErrNotArray = errors.New("the result is not a JSON array")

// streamHead is how much of an inbound message is read ahead, while a
// CallEach is waiting, to see whether the message is its result.
const streamHead = 4096

// stream is where the reader copies one CallEach's result, and what the
// caller does with each element.
type stream struct {
	sp   *spool
	each func(json.RawMessage)
}

// errExpired is runStream's error when the call's own timeout passed.
var errExpired = errors.New("the call's timeout passed")

// runStream is st.run bounded by ctx and, when it is not zero, the call's
// deadline.
func runStream(ctx context.Context, st *stream, deadline time.Time) error {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, deadline, errExpired)
		defer cancel()
		err := st.run(ctx)
		if context.Cause(ctx) == errExpired {
			return errExpired
		}
		return err
	}
	return st.run(ctx)
}

// run splits the spooled array and hands each element to each, on the
// caller's goroutine, until the array ends; a read waits for the reader,
// or ctx. An array that is not valid JSON is an error naming the element.
func (st *stream) run(ctx context.Context) error {
	er := wire.NewElementReader(st.sp.reader(ctx))
	for {
		// A caller that gave up (from inside each, say) stops here, even
		// when the rest is spooled already and no read would wait on ctx.
		if err := ctx.Err(); err != nil {
			return err
		}
		el, err := er.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, wire.ErrElement) {
			return fmt.Errorf("the result does not decode: %w", err)
		}
		if err != nil {
			return err
		}
		st.each(el)
	}
}

// CallEach invokes functionID with data and calls each, on the calling
// goroutine, with every element of its result, a JSON array, in order.
// A large result is read from the connection as it arrives and never held
// whole; a result that is absent or null has no elements, and any other
// result is ErrNotArray. Errors are Invoke's; each may have been called
// for some elements before a call fails (a lost connection, a timeout,
// an element that is not valid JSON), so the caller discards what it
// gathered on error.
func (c *Client) CallEach(ctx context.Context, functionID string, data any, each func(json.RawMessage)) error {
	c.streaming.Add(1)
	defer c.streaming.Add(-1)
	st := &stream{sp: newSpool(), each: each}
	res, err := c.invoke(ctx, Invocation{FunctionID: functionID, Data: data}, st)
	if err != nil || res == nil {
		return err // a streamed result resolves without one
	}
	elements := wire.ArrayElements(res)
	if elements == nil {
		if string(res) == "null" {
			return nil
		}
		return fmt.Errorf("invoke %s: %w", functionID, ErrNotArray)
	}
	for _, el := range elements {
		each(el)
	}
	return nil
}

// receive reads one inbound message. It is read whole and handled, unless
// a CallEach is waiting and the message is its result: then the result's
// elements are streamed to it. An error is the connection's read error.
func (c *Client) receive(cn *conn, r io.Reader) error {
	if c.streaming.Load() > 0 {
		br := bufio.NewReaderSize(r, streamHead)
		head, err := br.Peek(streamHead)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if id, at, ok := wire.ResultStart(head); ok {
			if p := c.streamCall(cn, id); p != nil {
				_, _ = br.Discard(at) // peeked already
				return c.streamResult(cn, id, p, br)
			}
		}
		r = br
	}
	data, err := readMessage(r)
	if err != nil {
		return err
	}
	c.handle(cn, data)
	return nil
}

// readBuffers hold what readMessage reads before copying it out; one of
// up to maxPooledRead bytes goes back for the next message.
var readBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledRead bounds a buffer kept for reuse: a rare large message (a
// state::list, an index) is not held on to once read.
const maxPooledRead = 256 << 10

// readMessage reads r whole into a slice of exactly its length, which
// the handlers keep parts of. io.ReadAll would grow a new slice from 512
// bytes by doubling for every message, leaving about three times a
// message's size as garbage (issue 28: a registration of 4 KiB is read
// twice, its call and its state event).
func readMessage(r io.Reader) ([]byte, error) {
	buf := readBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(r)
	data := bytes.Clone(buf.Bytes())
	if buf.Cap() <= maxPooledRead {
		readBuffers.Put(buf)
	}
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{} // as io.ReadAll: an empty message is not nil
	}
	return data, nil
}

// streamCall is the CallEach waiting for invocation id on cn, or nil.
func (c *Client) streamCall(cn *conn, id string) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.pending[id]; p != nil && p.stream != nil && p.conn == cn {
		return p
	}
	return nil
}

// streamResult copies the rest of the message, from the result array's
// '[' on, into p's spool, then resolves p: the caller reads the elements
// back meanwhile (stream.run). A read error ends the spool with it, and
// the connection (detach fails the call). A caller that stopped waiting
// has the rest skipped.
func (c *Client) streamResult(cn *conn, id string, p *call, r io.Reader) error {
	sp := p.stream.sp
	close(sp.begun)
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if sp.write(buf[:n]) != nil {
				return nil // the caller gave up, or the spool failed it: NextReader skips the rest
			}
			cn.extendDeadline()
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			sp.finish(fmt.Errorf("%w: %w", ErrNotConnected, err))
			return err
		}
	}
	sp.finish(nil)
	c.settle(id, p, outcome{})
	return nil
}

// settle resolves the call p with o unless it was resolved otherwise
// meanwhile (abandoned, or failed with its connection).
func (c *Client) settle(id string, p *call, o outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[id] == p {
		delete(c.pending, id)
		p.done <- o
	}
}
