package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// enqueueFunctionID is the queue worker's function the engine routes
// enqueue actions through.
const enqueueFunctionID = "engine::queue::enqueue"

// doneFunc receives the outcome of a call exactly once. A nil result means
// "no result field"; when e is set the result is ignored.
type doneFunc func(result json.RawMessage, e *wire.ErrorBody)

// invocation is a call sent to a worker-owned function, waiting for the
// callee's invocationresult. There is no engine-side timeout: it ends with
// the result or when the caller or callee disconnects.
type invocation struct {
	id         string
	functionID string
	caller     *conn // the worker waiting for the result; nil if none
	callee     *conn
	done       doneFunc // nil: the result is discarded
}

var (
	errInvocationStopped = &wire.ErrorBody{Code: "invocation_stopped", Message: "Invocation stopped"}
	// errChannelClosed is what a waiter gets when another call reuses its
	// invocation id (the engine drops the first waiter's channel).
	errChannelClosed = &wire.ErrorBody{Code: "invocation_error", Message: "channel closed"}
)

// notFoundLocked is the function_not_found a call of a missing function
// gets. A 0.22.1 engine names the id; with Options.Namespaces a worker's
// call also names the namespace it looked in and where the id does exist
// (resolve_function), and an engine-originated call names the namespace
// (call_with_metadata_ns).
func (s *Engine) notFoundLocked(r callRequest) *wire.ErrorBody {
	msg := fmt.Sprintf("Function %s not found", r.functionID)
	if s.namespaces {
		msg += " in namespace " + r.ns()
		if r.workerCall {
			msg += "."
			if known := nsOf(s.functions, s.nsFunctions, r.functionID); len(known) > 0 {
				msg += fmt.Sprintf(" It is registered in namespace(s): %s.", strings.Join(known, ", "))
			}
		}
	}
	return &wire.ErrorBody{Code: "function_not_found", Message: msg}
}

// refuseBlankNamespace answers an invokefunction whose namespace was given
// blank (Options.Namespaces): INVALID_NAMESPACE when the frame has an
// invocation id, whatever its action, and nothing otherwise.
func (s *Engine) refuseBlankNamespace(c *conn, m wire.InvokeFunction, field string) {
	if m.InvocationID == "" {
		c.log.Warn("invokefunction carried an empty namespace; dropped", zap.String("function_id", m.FunctionID))
		return
	}
	id, _ := normalizeUUID(m.InvocationID)
	c.send(wire.InvocationResult{InvocationID: id, FunctionID: m.FunctionID, Error: blankNamespaceError(field)})
}

// invoke handles an invokefunction frame from worker c, resolving the
// function in the frame's namespace (Options.Namespaces), or the default
// one: never the caller's own.
func (s *Engine) invoke(c *conn, m wire.InvokeFunction) {
	ns := DefaultNamespace
	if s.namespaces && m.Namespace != "" {
		ns = m.Namespace
	}
	if m.Action != nil && m.Action.Type == wire.ActionEnqueue {
		s.enqueue(c, m, ns)
		return
	}
	var id string
	var done doneFunc
	if m.Action == nil && m.InvocationID != "" {
		// Void calls never get an answer; their id is ignored.
		id, _ = normalizeUUID(m.InvocationID)
		done = c.replier(id, m.FunctionID, m.Traceparent, m.Baggage)
	}
	var doneElements func([]json.RawMessage)
	if done != nil {
		doneElements = c.elementsReplier(id, m.FunctionID, m.Traceparent, m.Baggage)
	}
	req := callRequest{
		id: id, namespace: ns, functionID: m.FunctionID, workerCall: true, data: withCaller(m.Data, c.id),
		metadata: canonical(m.Metadata), traceparent: m.Traceparent, baggage: m.Baggage,
		done: done, doneElements: doneElements,
	}
	if done != nil {
		req.caller = c
	}
	s.call(req)
}

// callRequest is one invocation request, from a worker or from the engine itself.
type callRequest struct {
	id          string // caller's invocation id; "" = generate one
	namespace   string // where functionID resolves; "" reads as the default namespace
	functionID  string
	workerCall  bool // a worker's invokefunction, whose miss is reported in full (notFoundLocked)
	data        json.RawMessage
	metadata    json.RawMessage
	traceparent string
	baggage     string
	caller      *conn // tracked so its disconnect halts the call
	done        doneFunc
	// doneElements, when set with done, takes the successful result of an
	// in-process function that gives an array as its elements (an
	// elementsFunc): a reply to a worker writes them without joining them.
	doneElements func(elements []json.RawMessage)
}

// ns is the namespace the call resolves in.
func (r callRequest) ns() string {
	if r.namespace == "" {
		return DefaultNamespace
	}
	return r.namespace
}

// call runs an in-process function inline or forwards the call to the
// owning worker, reusing the caller's invocation id when there is one.
func (s *Engine) call(r callRequest) {
	s.mu.Lock()
	f := s.functionLocked(r.ns(), r.functionID)
	if f == nil {
		e := s.notFoundLocked(r)
		s.mu.Unlock()
		if r.done != nil {
			r.done(nil, e)
		}
		return
	}
	if f.run != nil {
		s.mu.Unlock()
		if f.void != nil && r.done == nil {
			f.void(s, f.ns(), r.data)
			return
		}
		if f.elements != nil && r.done != nil && r.doneElements != nil {
			elements, e := f.elements(s, f.ns(), r.data)
			if e != nil {
				r.done(nil, e)
				return
			}
			r.doneElements(elements)
			return
		}
		res, e := f.run(s, f.ns(), r.data)
		if r.done != nil {
			r.done(res, e)
		}
		return
	}
	id := r.id
	if id == "" {
		id = uuid.NewString()
	}
	inv := &invocation{id: id, functionID: r.functionID, callee: f.owner, done: r.done}
	replaced := s.invocations[id]
	if replaced != nil {
		s.forgetLocked(replaced)
	}
	frame := wire.InvokeFunction{
		InvocationID: id, FunctionID: r.functionID, Data: r.data, Metadata: r.metadata,
		Traceparent: r.traceparent, Baggage: r.baggage,
	}
	if !f.owner.send(frame) {
		s.mu.Unlock()
		finish(replaced, nil, errChannelClosed)
		if r.done != nil {
			r.done(nil, &wire.ErrorBody{Code: "channel_send_failed", Message: "channel closed"})
		}
		return
	}
	s.invocations[id] = inv
	f.owner.invocations[id] = struct{}{}
	if r.caller != nil && !r.caller.dead {
		inv.caller = r.caller
		r.caller.invocations[id] = struct{}{}
	}
	s.mu.Unlock()
	finish(replaced, nil, errChannelClosed)
}

// complete routes an invocationresult purely by id: whoever sends it, it
// resolves the waiting call; an unknown id is discarded.
func (s *Engine) complete(c *conn, m wire.InvocationResult) {
	id, _ := normalizeUUID(m.InvocationID)
	s.mu.Lock()
	delete(c.invocations, id)
	inv := s.invocations[id]
	if inv != nil {
		s.forgetLocked(inv)
	}
	s.mu.Unlock()
	if inv == nil {
		c.log.Debug("dropped invocationresult for an unknown invocation", zap.String("invocation_id", id))
		return
	}
	finish(inv, canonical(m.Result), m.Error)
}

// forgetLocked removes an invocation from every table that tracks it.
func (s *Engine) forgetLocked(inv *invocation) {
	delete(s.invocations, inv.id)
	delete(inv.callee.invocations, inv.id)
	if inv.caller != nil {
		delete(inv.caller.invocations, inv.id)
	}
}

// haltLocked stops every invocation c is caller or callee of and returns
// them; the caller finishes them with invocation_stopped after unlocking.
func (s *Engine) haltLocked(c *conn) []*invocation {
	var halted []*invocation
	for id := range c.invocations {
		if inv := s.invocations[id]; inv != nil {
			s.forgetLocked(inv)
			halted = append(halted, inv)
		}
	}
	clear(c.invocations)
	return halted
}

func finish(inv *invocation, result json.RawMessage, e *wire.ErrorBody) {
	if inv != nil && inv.done != nil {
		inv.done(result, e)
	}
}

// replier answers worker c's synchronous call.
func (c *conn) replier(id, functionID, traceparent, baggage string) doneFunc {
	return func(result json.RawMessage, e *wire.ErrorBody) {
		if e != nil {
			result = nil
		}
		c.send(wire.InvocationResult{
			InvocationID: id, FunctionID: functionID, Result: result, Error: e,
			Traceparent: traceparent, Baggage: baggage,
		})
	}
}

// elementsReplier answers worker c's synchronous call with an array
// result given as its elements.
func (c *conn) elementsReplier(id, functionID, traceparent, baggage string) func([]json.RawMessage) {
	return func(elements []json.RawMessage) {
		c.sendArray(wire.InvocationResult{
			InvocationID: id, FunctionID: functionID, Traceparent: traceparent, Baggage: baggage,
		}, elements)
	}
}

// enqueue hands the call to the queue worker's engine::queue::enqueue, as
// the engine does, and answers the caller with the message receipt id, or
// with enqueue_error when no queue worker is installed. A target outside
// the default namespace (Options.Namespaces) is named in the payload.
func (s *Engine) enqueue(c *conn, m wire.InvokeFunction, ns string) {
	receipt := uuid.NewString()
	payload := map[string]any{
		"queue":            m.Action.Queue,
		"function_id":      m.FunctionID,
		"data":             canonical(m.Data),
		"messageReceiptId": receipt,
		"traceparent":      nullable(m.Traceparent),
		"baggage":          nullable(m.Baggage),
	}
	if ns != DefaultNamespace {
		payload["namespace"] = ns
	}
	var done doneFunc
	if m.InvocationID != "" {
		id, _ := normalizeUUID(m.InvocationID)
		reply := c.replier(id, m.FunctionID, m.Traceparent, m.Baggage)
		done = func(_ json.RawMessage, e *wire.ErrorBody) {
			if e == nil {
				reply(mustEncode(map[string]any{"messageReceiptId": receipt}), nil)
				return
			}
			msg := e.Code + ": " + e.Message
			if e.Code == "function_not_found" {
				msg = fmt.Sprintf("No queue provider is installed. `TriggerAction::Enqueue` routes through the `%s` "+
					"provider, which the standalone queue worker registers. Add it with `iii worker add queue`. "+
					"(underlying: %s)", enqueueFunctionID, e.Message)
			}
			reply(nil, &wire.ErrorBody{Code: "enqueue_error", Message: msg})
		}
	}
	s.call(callRequest{
		functionID: enqueueFunctionID, data: mustEncode(payload),
		traceparent: m.Traceparent, baggage: m.Baggage, done: done,
	})
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
