package interop

import (
	"context"
	"encoding/json"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
)

// The peer's commands, and typed views of the events that answer them.

// nodeResult is the outcome of the peer's worker.trigger call.
type nodeResult struct {
	OK         bool            `json:"ok"`
	HasResult  bool            `json:"has_result"`
	ResultType string          `json:"result_type"`
	Result     json.RawMessage `json:"result"`
	Error      *nodeError      `json:"error"`
}

// nodeError is what the Node caller's rejection looked like.
type nodeError struct {
	Name       string `json:"name"`
	Message    string `json:"message"`
	Code       string `json:"code"`
	FunctionID string `json:"function_id"`
	Stacktrace string `json:"stacktrace"`
}

// nodeInvoked is one call of a Node function, as its handler saw it.
type nodeInvoked struct {
	FunctionID  string          `json:"function_id"`
	Data        json.RawMessage `json:"data"`
	HasMetadata bool            `json:"has_metadata"`
	Metadata    json.RawMessage `json:"metadata"`
}

// nodeTriggerConfig is what a Node provider's trigger handler received.
type nodeTriggerConfig struct {
	TriggerType string          `json:"trigger_type"`
	ID          string          `json:"id"`
	FunctionID  *string         `json:"function_id"`
	Config      json.RawMessage `json:"config"`
	HasMetadata bool            `json:"has_metadata"`
	Metadata    json.RawMessage `json:"metadata"`
}

// wireFrame summarises one frame on the peer's worker socket.
type wireFrame struct {
	Dir              string          `json:"dir"` // "in" (engine to peer) or "out"
	Type             string          `json:"type"`
	Keys             []string        `json:"keys"` // top-level keys, sorted
	InvocationID     string          `json:"invocation_id"`
	FunctionID       string          `json:"function_id"`
	ID               string          `json:"id"`
	TriggerType      string          `json:"trigger_type"`
	Action           json.RawMessage `json:"action"`
	Traceparent      string          `json:"traceparent"`
	Baggage          string          `json:"baggage"`
	PreviousWorkerID string          `json:"previous_worker_id"`
	ReattachToken    string          `json:"reattach_token"`
	DataIsNull       bool            `json:"data_is_null"`
	HasResult        bool            `json:"has_result"`
	Error            json.RawMessage `json:"error"`
}

// otelTap is what the peer saw of its SDK's telemetry socket.
type otelTap struct {
	Opened    int            `json:"opened"`
	BinaryOut int            `json:"binaryOut"`
	Prefixes  map[string]int `json:"prefixes"`
}

// registerFunction registers a Node function with one of peer.mjs's
// behaviours (echo, record, null, hang, throw, throw_string).
func (p *nodePeer) registerFunction(id, kind string, extra map[string]any) {
	p.t.Helper()
	fields := map[string]any{"id": id, "kind": kind}
	for k, v := range extra {
		fields[k] = v
	}
	p.do("register_function", "function_registered", fields)
}

// call makes a synchronous worker.trigger from Node. payload noPayload
// leaves the payload out.
func (p *nodePeer) call(functionID string, payload any, timeout time.Duration) nodeResult {
	p.t.Helper()
	fields := map[string]any{"function_id": functionID, "timeout_ms": timeout.Milliseconds()}
	if payload != noPayload {
		fields["payload"] = payload
	}
	var r nodeResult
	p.do("call", "result", fields).decode(p.t, &r)
	return r
}

// noPayload makes call send no payload at all.
var noPayload = &struct{ none bool }{}

// callWithMetadata is call with per-invocation metadata.
func (p *nodePeer) callWithMetadata(functionID string, payload, metadata any) nodeResult {
	p.t.Helper()
	var r nodeResult
	p.do("call", "result", map[string]any{"function_id": functionID, "payload": payload,
		"metadata": metadata, "timeout_ms": 5000}).decode(p.t, &r)
	return r
}

// voidCall makes a fire-and-forget worker.trigger from Node and reports
// whether the SDK's promise resolved to undefined.
func (p *nodePeer) voidCall(functionID string, payload, metadata any) bool {
	p.t.Helper()
	fields := map[string]any{"function_id": functionID, "payload": payload}
	if metadata != nil {
		fields["metadata"] = metadata
	}
	var r struct {
		ReturnedUndefined bool `json:"returned_undefined"`
	}
	p.do("void", "void_sent", fields).decode(p.t, &r)
	return r.ReturnedUndefined
}

// awaitInvoked takes the next call of a Node function.
func (p *nodePeer) awaitInvoked(functionID string) nodeInvoked {
	p.t.Helper()
	var inv nodeInvoked
	p.await("invocation of "+functionID, func(e peerEvent) bool {
		if e.Event != "invoked" {
			return false
		}
		var probe struct {
			FunctionID string `json:"function_id"`
		}
		return json.Unmarshal(e.line, &probe) == nil && probe.FunctionID == functionID
	}).decode(p.t, &inv)
	return inv
}

// frames returns the frames the peer's worker socket carried so far.
func (p *nodePeer) frames() ([]wireFrame, otelTap) {
	p.t.Helper()
	var r struct {
		Frames []wireFrame `json:"frames"`
		OTel   otelTap     `json:"otel"`
	}
	p.do("frames", "frames", nil).decode(p.t, &r)
	return r.Frames, r.OTel
}

// workerID is the engine's id for the peer's live connection.
func (p *nodePeer) workerID(srv *engine.Engine) string {
	p.t.Helper()
	var ids []string
	for _, w := range srv.Workers() {
		if w.Name == p.name {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) != 1 {
		p.t.Fatalf("engine lists %d connections named %q (%v), want 1", len(ids), p.name, ids)
	}
	return ids[0]
}

// waitConnected waits until the peer's metadata call has landed: Node
// sends it after every registration it holds, so they have landed too.
func (p *nodePeer) waitConnected(srv *engine.Engine) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := srv.WaitWorker(ctx, p.name); err != nil {
		p.t.Fatalf("peer %s never reported its metadata: %v", p.name, err)
	}
}
