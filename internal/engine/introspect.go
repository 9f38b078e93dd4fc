package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Function is a registered function as the engine sees it.
type Function struct {
	ID          string
	Description string
	// RequestFormat, ResponseFormat and Metadata are as registered, in the
	// engine's canonical JSON (sorted keys); nil when not given.
	RequestFormat  json.RawMessage
	ResponseFormat json.RawMessage
	Metadata       json.RawMessage
	// WorkerID is the owning connection; "" for in-process functions.
	WorkerID string
}

// TriggerType is a registered trigger type.
type TriggerType struct {
	ID          string
	Description string
	// TriggerRequestFormat and CallRequestFormat are the schemas the
	// provider registered; nil when not given.
	TriggerRequestFormat json.RawMessage
	CallRequestFormat    json.RawMessage
	// ProviderID is the providing connection; "" for the engine's own
	// types (engine::functions-available, engine::workers-available).
	ProviderID string
}

// Binding is a registered trigger (a function bound to a trigger type).
type Binding struct {
	ID          string
	TriggerType string
	FunctionID  string
	// Config and Metadata are as registered (Metadata nil when not given).
	Config   json.RawMessage
	Metadata json.RawMessage
	// WorkerID is the connection that registered it last.
	WorkerID string
	// Parked is true while the binding waits for its trigger type's
	// provider (unknown type, provider gone, or provider rejected it).
	Parked bool
}

// Worker is one connected worker.
type Worker struct {
	ID string
	// Name, Description, Runtime, Version, OS, Isolation and PID are what
	// the worker reported through engine::workers::register; "" or 0 when
	// not reported.
	Name, Description, Runtime, Version, OS, Isolation string
	PID                                                uint32
	// RemoteIP is the connection's peer address without the port.
	RemoteIP string
	// ConnectedAt is when the WebSocket was accepted.
	ConnectedAt time.Time
	// Functions are the ids it registered (sorted), including ids another
	// worker has since taken over.
	Functions []string
}

// Functions lists every registered function, in-process ones included,
// sorted by id.
func (s *Engine) Functions() []Function {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Function, 0, len(s.functions))
	for _, id := range slices.Sorted(maps.Keys(s.functions)) {
		out = append(out, s.functionLocked(s.functions[id]))
	}
	return out
}

// Function returns one registered function.
func (s *Engine) Function(id string) (Function, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.functions[id]
	if f == nil {
		return Function{}, false
	}
	return s.functionLocked(f), true
}

func (s *Engine) functionLocked(f *function) Function {
	out := Function{ID: f.id, Description: f.description, RequestFormat: f.requestFormat,
		ResponseFormat: f.responseFormat, Metadata: f.metadata}
	if f.owner != nil {
		out.WorkerID = f.owner.id
	}
	return out
}

// TriggerTypes lists registered trigger types sorted by id.
func (s *Engine) TriggerTypes() []TriggerType {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TriggerType, 0, len(s.types))
	for _, id := range slices.Sorted(maps.Keys(s.types)) {
		t := s.types[id]
		tt := TriggerType{ID: t.id, Description: t.description,
			TriggerRequestFormat: t.requestFormat, CallRequestFormat: t.callFormat}
		if t.provider != nil {
			tt.ProviderID = t.provider.id
		}
		out = append(out, tt)
	}
	return out
}

// Bindings lists live and parked bindings sorted by id (a live binding
// first when an id is both live and parked).
func (s *Engine) Bindings() []Binding {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Binding
	add := func(b *binding, parked bool) {
		bb := Binding{ID: b.id, TriggerType: b.triggerType, FunctionID: b.functionID,
			Config: b.config, Metadata: b.metadata, Parked: parked}
		if b.owner != nil {
			bb.WorkerID = b.owner.id
		}
		out = append(out, bb)
	}
	for _, b := range s.bindings {
		add(b, false)
	}
	for _, b := range s.parked {
		add(b, true)
	}
	slices.SortFunc(out, func(x, y Binding) int {
		if c := cmp.Compare(x.ID, y.ID); c != 0 {
			return c
		}
		if x.Parked == y.Parked {
			return 0
		}
		if y.Parked {
			return -1
		}
		return 1
	})
	return out
}

// Workers lists connected workers in connection order.
func (s *Engine) Workers() []Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	conns := slices.SortedFunc(maps.Values(s.workers), func(x, y *conn) int { return cmp.Compare(x.seq, y.seq) })
	out := make([]Worker, 0, len(conns))
	for _, c := range conns {
		w := Worker{ID: c.id, Name: derefOr(c.meta.name), Description: derefOr(c.meta.description),
			Runtime: derefOr(c.meta.runtime), Version: derefOr(c.meta.version), OS: derefOr(c.meta.os),
			Isolation: derefOr(c.meta.isolation), RemoteIP: c.ip, ConnectedAt: c.connectedAt,
			Functions: slices.Sorted(maps.Keys(c.functionIDs))}
		if c.meta.pid != nil {
			w.PID = *c.meta.pid
		}
		out = append(out, w)
	}
	return out
}

// WaitFunction returns once a function with that id is registered, by any
// worker (or in-process), or when ctx is done.
func (s *Engine) WaitFunction(ctx context.Context, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("function %q", id), func() bool { return s.functions[id] != nil })
}

// WaitFunctionGone returns once no function with that id is registered
// (its worker unregistered it or disconnected), or when ctx is done.
func (s *Engine) WaitFunctionGone(ctx context.Context, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("function %q to be gone", id), func() bool { return s.functions[id] == nil })
}

// WaitTriggerType returns once a trigger type with that id is registered.
func (s *Engine) WaitTriggerType(ctx context.Context, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("trigger type %q", id), func() bool { return s.types[id] != nil })
}

// WaitBinding returns once a binding with that id is live (forwarded to or
// accepted by its trigger type's provider).
func (s *Engine) WaitBinding(ctx context.Context, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("live trigger %q", id), func() bool { return s.bindings[id] != nil })
}

// WaitWorker returns once a connected worker has reported that name
// through engine::workers::register.
func (s *Engine) WaitWorker(ctx context.Context, name string) error {
	return s.waitFor(ctx, fmt.Sprintf("worker %q", name), func() bool {
		for _, c := range s.workers {
			if c.meta.name != nil && *c.meta.name == name {
				return true
			}
		}
		return false
	})
}

// State returns a stored state value; false when the key is missing.
func (s *Engine) State(scope, key string) (json.RawMessage, bool) {
	return s.state.get(scope, key)
}

// StateValues lists a scope's values in first-write order, as state::list
// does.
func (s *Engine) StateValues(scope string) []json.RawMessage {
	return s.state.values(scope)
}

// SetState writes a state value (for example a row another worker wrote)
// without going through a socket. Like state::set, it fires the state
// trigger.
func (s *Engine) SetState(scope, key string, value json.RawMessage) error {
	v, err := decodeValue(value)
	if err != nil {
		return fmt.Errorf("engine: set state %s/%s: %w", scope, key, err)
	}
	s.writeState(scope, key, mustEncode(v))
	return nil
}

// DeleteState deletes a state value without going through a socket. Like
// state::delete, it fires the state trigger, even for a missing key.
func (s *Engine) DeleteState(scope, key string) {
	s.deleteState(scope, key)
}
