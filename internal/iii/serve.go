package iii

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// serveInvocation handles an invokefunction from the engine: each handler
// runs in its own goroutine so a slow one never delays the read loop;
// refusals are answered inline.
func (c *Client) serveInvocation(cn *conn, m wire.InvokeFunction) {
	c.mu.Lock()
	entry, ok := c.functions[m.FunctionID]
	switch {
	case c.closed:
		c.mu.Unlock()
		c.log.Debug("ignored invocation: client closed", zap.String("function_id", m.FunctionID))
	case c.shuttingDown:
		c.mu.Unlock()
		c.reply(cn, m, nil, &Error{Code: CodeUnavailable, Message: "worker is shutting down"})
	case !ok:
		c.mu.Unlock()
		c.reply(cn, m, nil, &Error{Code: CodeFunctionNotFound, Message: fmt.Sprintf("Function %s not found", m.FunctionID)})
	default:
		c.inflight++
		c.handlers.Add(1)
		c.mu.Unlock()
		go c.runHandler(cn, entry.fn, m)
	}
}

// runHandler runs one invocation and answers it on the connection it came
// from. Its ctx ends when the client closes.
func (c *Client) runHandler(cn *conn, fn Function, m wire.InvokeFunction) {
	defer c.handlers.Done()
	defer c.handlerDone()
	req := Request{FunctionID: m.FunctionID, InvocationID: m.InvocationID, Data: m.Data,
		Metadata: m.Metadata, Traceparent: m.Traceparent, Baggage: m.Baggage}
	ctx := c.ctx
	var hold *invocationHold
	if c.bytes != nil {
		hold = &invocationHold{budget: c.bytes, wait: c.opts.bytesWait}
		ctx = context.WithValue(ctx, holdKey{}, hold)
	}
	result, err := c.callHandler(ctx, fn, req)
	c.safeReply(cn, m, result, err, hold.release)
}

// safeReply is reply with a last line of defence: building the reply runs
// code the handler chose (a result's MarshalJSON, an error's methods, a
// typed nil error), and a panic there must not take the worker down. The
// caller then gets invocation_failed.
//
// sent is called once the reply has been written, or dropped, or when
// there is none: the invocation's bytes in flight are given back then.
func (c *Client) safeReply(cn *conn, m wire.InvokeFunction, result any, err error, sent func()) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("building the reply panicked", zap.String("function_id", m.FunctionID),
				zap.Any("panic", v), zap.ByteString("stack", debug.Stack()))
			c.replyThen(cn, m, nil, &Error{Code: CodeInvocationFailed,
				Message: fmt.Sprintf("handler %s returned a result or error that could not be encoded: %v", m.FunctionID, v)}, sent)
		}
	}()
	c.replyThen(cn, m, result, err, sent)
}

// callHandler turns a handler panic into an invocation_failed error; the
// stack goes to the log, not onto the wire.
func (c *Client) callHandler(ctx context.Context, fn Function, req Request) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("handler panicked", zap.String("function_id", fn.ID),
				zap.Any("panic", v), zap.ByteString("stack", debug.Stack()))
			result, err = nil, panicError(fn.ID, v)
		}
	}()
	return fn.Handler(ctx, req)
}

func (c *Client) handlerDone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight--
	if c.shuttingDown && c.inflight == 0 {
		close(c.drained)
	}
}

// reply sends the one invocationresult an invocation with an id is owed,
// echoing function_id, traceparent and baggage. Without an id nothing is
// sent. A result that cannot be encoded becomes an invocation_failed error
// so the caller still gets an answer.
func (c *Client) reply(cn *conn, m wire.InvokeFunction, result any, err error) {
	c.replyThen(cn, m, result, err, func() {})
}

// replyThen is reply, calling sent once the frame has been written or
// dropped, or at once when nothing is sent.
func (c *Client) replyThen(cn *conn, m wire.InvokeFunction, result any, err error, sent func()) {
	if m.InvocationID == "" {
		if err != nil {
			c.log.Debug("invocation without id failed", zap.String("function_id", m.FunctionID), zap.Error(err))
		}
		sent()
		return
	}
	frame := c.resultFrame(m, result, err)
	if cap(frame) >= minPooledFrame {
		// The frame is the connection's alone once queued: once written
		// it can carry the next large result.
		written := sent
		sent = func() { releaseFrame(frame); written() }
	}
	if !cn.sendThen(frame, sent) {
		sent()
		c.log.Debug("result dropped: its connection has ended",
			zap.String("function_id", m.FunctionID), zap.String("invocation_id", m.InvocationID))
	}
}

// resultFrame encodes the invocationresult for m, scanning and copying
// the result as few times as its kind allows (docs/decisions.md D52): a
// JSONAppender writes itself into the frame; an Encoded, checked when it
// was encoded, is copied in with no scan; a json.RawMessage, checked once
// by encodeJSON, is copied in without a second scan; anything else
// is encoded by encoding/json and checked as the frame is built, since a
// MarshalJSON or a nested json.RawMessage may hold bytes that are not
// UTF-8. A result over MaxResultBytes is replaced by an unavailable error
// that says how to ask for less. A frame that carries an error holds only
// strings, so encoding it cannot fail.
func (c *Client) resultFrame(m wire.InvokeFunction, result any, err error) []byte {
	r := wire.InvocationResult{InvocationID: m.InvocationID, FunctionID: m.FunctionID,
		Traceparent: m.Traceparent, Baggage: m.Baggage}
	if err != nil {
		r.Error = errorBody(err)
		return mustEncode(r)
	}
	if a, ok := result.(JSONAppender); ok {
		return c.resultInPlace(m, r, 0, a.AppendJSON)
	}
	if e, ok := result.(Encoded); ok {
		if len(e) == 0 {
			return mustEncode(r) // as a nil result: no result field
		}
		return c.resultInPlace(m, r, len(e), func(dst []byte) []byte { return append(dst, e...) })
	}
	raw, encErr := encodeJSON(result)
	switch {
	case encErr != nil:
		r.Error = errorBody(fmt.Errorf("encode result of %s: %w", m.FunctionID, encErr))
		return mustEncode(r)
	case raw == nil:
		return mustEncode(r) // a nil result: no result field
	}
	if _, checked := result.(json.RawMessage); checked {
		return c.resultInPlace(m, r, len(raw), func(dst []byte) []byte { return append(dst, raw...) })
	}
	if len(raw) > c.maxResultBytes() {
		r.Error = c.oversize(m.FunctionID, len(raw))
		return mustEncode(r)
	}
	r.Result = raw
	frame, encErr := wire.Encode(r)
	if encErr != nil {
		r.Result = nil
		r.Error = errorBody(fmt.Errorf("encode result of %s: %w", m.FunctionID, encErr))
		return mustEncode(r)
	}
	return frame
}

// resultInPlace builds the frame with the result appended straight into
// it, or the over-budget error.
func (c *Client) resultInPlace(m wire.InvokeFunction, r wire.InvocationResult, sizeHint int, appendResult func([]byte) []byte) []byte {
	frame, n := wire.AppendResult(frameBuffer(256+sizeHint), r, appendResult)
	if n > c.maxResultBytes() {
		r.Error = c.oversize(m.FunctionID, n)
		return mustEncode(r)
	}
	return frame
}

// oversize is the error that replaces a result of n bytes over this
// worker's response budget.
func (c *Client) oversize(functionID string, n int) *wire.ErrorBody {
	hint := "ask for less"
	if c.opts.OversizeHint != nil {
		if h := c.opts.OversizeHint(functionID); h != "" {
			hint = h
		}
	}
	return &wire.ErrorBody{Code: CodeUnavailable, Message: fmt.Sprintf(
		"the result of %s is %d bytes, over this worker's response budget of %d bytes; %s",
		functionID, n, c.maxResultBytes(), hint)}
}
