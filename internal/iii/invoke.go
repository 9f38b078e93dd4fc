package iii

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Invocation is an outbound call.
type Invocation struct {
	FunctionID string
	// Data is the payload: nil is sent as {}, a json.RawMessage verbatim,
	// anything else JSON-encoded without HTML escaping.
	Data any
	// Metadata is the per-invocation sidecar (omitted when nil), encoded
	// like Data.
	Metadata any
	// Timeout bounds a synchronous call; 0 means the ctx deadline, else
	// Options.CallTimeout.
	Timeout     time.Duration
	Traceparent string
	Baggage     string
	// Namespace is where FunctionID is found (engine 0.23): "" is this
	// worker's namespace, or the default one for an engine::* function
	// (namespace.go).
	Namespace string
}

// call is a synchronous invocation waiting for its result.
type call struct {
	done   chan outcome // capacity 1: the resolver never blocks
	conn   *conn        // the connection the call went out on
	stream *stream      // CallEach's: the result's elements go there as they are read
}

type outcome struct {
	result json.RawMessage
	err    error
}

// Call invokes functionID synchronously with data; see Invoke.
func (c *Client) Call(ctx context.Context, functionID string, data any) (json.RawMessage, error) {
	return c.Invoke(ctx, Invocation{FunctionID: functionID, Data: data})
}

// Invoke calls a function and waits for its result. It fails fast with
// ErrNotConnected while disconnected (also when the connection drops
// before the result arrives), with ErrTimeout when Invocation.Timeout, the
// ctx deadline or Options.CallTimeout passes, and with ErrClosed on Close.
// A remote failure is returned unwrapped as *Error with the wire code and
// message. A result without a value is nil, which callers treat like JSON
// null.
func (c *Client) Invoke(ctx context.Context, inv Invocation) (json.RawMessage, error) {
	return c.invoke(ctx, inv, nil)
}

// invoke is Invoke; with st, the elements of a result streamed to st are
// handed to st.each on this goroutine as they arrive (CallEach).
func (c *Client) invoke(ctx context.Context, inv Invocation, st *stream) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("invoke %s: %w", inv.FunctionID, err)
	}
	if err := c.waitRoute(ctx, inv); err != nil {
		return nil, err
	}
	id := uuid.NewString()
	frame, err := c.invokeFrame(inv, id, nil)
	if err != nil {
		return nil, err
	}
	timeout := inv.Timeout
	if _, hasDeadline := ctx.Deadline(); timeout <= 0 && !hasDeadline {
		timeout = c.opts.CallTimeout
	}
	done := make(chan outcome, 1)
	if err := c.startCall(id, frame, &call{done: done, stream: st}); err != nil {
		return nil, fmt.Errorf("invoke %s: %w", inv.FunctionID, err)
	}
	var expired <-chan time.Time
	var deadline time.Time // zero: none but ctx's
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var begun <-chan struct{}
	if st != nil {
		begun = st.sp.begun
		defer st.sp.close() // the reader stops copying, whatever happened
	}
	// readBack reads a streamed result back (st.run) once the reader has
	// begun copying it, before or after it resolved the call.
	readBack := func() error {
		begun = nil
		err := runStream(ctx, st, deadline)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return c.givenUp(ctx, id, inv)
		case errors.Is(err, errExpired):
			c.abandon(id)
			return fmt.Errorf("invoke %s: %w after %v", inv.FunctionID, ErrTimeout, timeout)
		}
		c.abandon(id)
		return fmt.Errorf("invoke %s: %w", inv.FunctionID, err)
	}
	for {
		select {
		case <-begun:
			if err := readBack(); err != nil {
				return nil, err
			}
		case o := <-done:
			if begun != nil && o.err == nil {
				select {
				case <-begun: // streamed: the outcome came first only because select chose it
					if err := readBack(); err != nil {
						return nil, err
					}
				default:
				}
			}
			return callOutcome(inv, o)
		case <-expired:
			c.abandon(id)
			return nil, fmt.Errorf("invoke %s: %w after %v", inv.FunctionID, ErrTimeout, timeout)
		case <-ctx.Done():
			return nil, c.givenUp(ctx, id, inv)
		}
	}
}

// givenUp abandons a call whose ctx ended and says why.
func (c *Client) givenUp(ctx context.Context, id string, inv Invocation) error {
	c.abandon(id)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("invoke %s: %w: %w", inv.FunctionID, ErrTimeout, ctx.Err())
	}
	return fmt.Errorf("invoke %s: %w", inv.FunctionID, ctx.Err())
}

// callOutcome is what a call returns for the outcome its resolver sent.
func callOutcome(inv Invocation, o outcome) (json.RawMessage, error) {
	var remote *Error
	if errors.As(o.err, &remote) {
		return nil, remote
	}
	if o.err != nil {
		return nil, fmt.Errorf("invoke %s: %w", inv.FunctionID, o.err)
	}
	return o.result, nil
}

// InvokeVoid sends a fire-and-forget call: no invocation id, nothing comes
// back (the engine reports no error, not even an unknown function). It
// fails only when the frame cannot be sent.
func (c *Client) InvokeVoid(inv Invocation) error {
	frame, err := c.invokeFrame(inv, "", &wire.Action{Type: wire.ActionVoid})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.connectedLocked(); err != nil {
		return fmt.Errorf("invoke %s: %w", inv.FunctionID, err)
	}
	if !c.conn.send(frame) {
		return fmt.Errorf("invoke %s: %w", inv.FunctionID, ErrNotConnected)
	}
	return nil
}

// connectedLocked says why no call can be sent now, if it cannot.
func (c *Client) connectedLocked() error {
	switch {
	case c.closed:
		return ErrClosed
	case c.fatal != nil:
		return fmt.Errorf("%w: %w", ErrNotConnected, c.fatal)
	case c.conn == nil:
		return ErrNotConnected
	}
	return nil
}

// startCall records the pending call and queues its frame, atomically with
// respect to detach, so a call is either failed by detach or its
// connection is still live.
func (c *Client) startCall(id string, frame []byte, p *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.connectedLocked(); err != nil {
		return err
	}
	if !c.conn.send(frame) {
		return ErrNotConnected
	}
	p.conn = c.conn
	c.pending[id] = p
	return nil
}

// abandon forgets a call that timed out or was cancelled; its result, if
// it ever arrives, is dropped as unknown.
func (c *Client) abandon(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
}

// resolve delivers an invocationresult to its waiting call.
func (c *Client) resolve(m wire.InvocationResult) {
	c.mu.Lock()
	p, ok := c.pending[m.InvocationID]
	delete(c.pending, m.InvocationID)
	c.mu.Unlock()
	if !ok {
		c.log.Debug("ignored result for unknown invocation",
			zap.String("invocation_id", m.InvocationID), zap.String("function_id", m.FunctionID))
		return
	}
	if m.Error != nil {
		p.done <- outcome{err: fromBody(m.Error)}
		return
	}
	p.done <- outcome{result: m.Result}
}

// failPendingLocked fails the calls made on cn (every call when cn is nil).
func (c *Client) failPendingLocked(cn *conn, err error) {
	for id, p := range c.pending {
		if cn == nil || p.conn == cn {
			p.done <- outcome{err: err}
			delete(c.pending, id)
		}
	}
}

// invokeFrame is the frame of a call this worker makes: inv in the
// namespace the call names (callNamespace); a blank one is refused.
func (c *Client) invokeFrame(inv Invocation, id string, action *wire.Action) ([]byte, error) {
	if err := checkNamespace(inv.Namespace, "the namespace"); err != nil {
		return nil, fmt.Errorf("invoke %s: %w", inv.FunctionID, err)
	}
	inv.Namespace = c.callNamespace(inv.Namespace, inv.FunctionID)
	return invokeFrame(inv, id, action)
}

// invokeFrame encodes an invokefunction frame, inv.Namespace as given;
// data nil becomes {} because the engine drops invokes without data.
func invokeFrame(inv Invocation, id string, action *wire.Action) ([]byte, error) {
	if inv.FunctionID == "" {
		return nil, errors.New("invoke: function id is required")
	}
	data, err := encodeJSON(inv.Data)
	if err != nil {
		return nil, fmt.Errorf("invoke %s: data: %w", inv.FunctionID, err)
	}
	if data == nil {
		data = json.RawMessage("{}")
	}
	meta, err := encodeJSON(inv.Metadata)
	if err != nil {
		return nil, fmt.Errorf("invoke %s: metadata: %w", inv.FunctionID, err)
	}
	b, err := wire.Encode(wire.InvokeFunction{InvocationID: id, FunctionID: inv.FunctionID, Data: data,
		Metadata: meta, Traceparent: inv.Traceparent, Baggage: inv.Baggage, Action: action,
		Namespace: inv.Namespace})
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", inv.FunctionID, err)
	}
	return b, nil
}

// encodeJSON renders a payload: nil (or an empty json.RawMessage) is
// "nothing" and returns nil; a json.RawMessage is checked and kept as is;
// anything else is encoded without HTML escaping, since payloads carry
// markdown, not HTML.
func encodeJSON(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(x) == 0 {
			return nil, nil
		}
		if !wire.Valid(x) {
			return nil, errors.New("json.RawMessage is not valid JSON")
		}
		return x, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
