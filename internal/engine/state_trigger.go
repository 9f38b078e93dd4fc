package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The state worker's trigger type (docs/engine.md#the-state-trigger): after
// every state::set and state::delete, each binding whose config matches
// the write is called with the event, one at a time, each call waiting for
// its result before the next starts.
const (
	triggerState            = "state"
	triggerStateDescription = "Triggered on state changes (state:created, state:updated, state:deleted)"
)

// State event types.
const (
	stateCreated = "state:created"
	stateUpdated = "state:updated"
	stateDeleted = "state:deleted"
)

// stateEvent is the payload a state binding receives, in the engine's
// field order, and the namespace of the write (not sent): only the
// bindings bound to that namespace's state trigger type receive it.
type stateEvent struct {
	namespace string

	Type      string          `json:"type"`
	EventType string          `json:"event_type"`
	Scope     string          `json:"scope"`
	Key       string          `json:"key"`
	OldValue  json.RawMessage `json:"old_value"`
	NewValue  json.RawMessage `json:"new_value"`
}

// stateBindingConfig is what a state binding may filter on; every field
// is optional.
type stateBindingConfig struct {
	Scope               *string `json:"scope"`
	Key                 *string `json:"key"`
	ConditionFunctionID *string `json:"condition_function_id"`
}

// parseStateConfig reads a state binding's config; absent or null means
// no filter. Anything else that is not an object of optional strings is
// refused, as the engine refuses it.
func parseStateConfig(raw json.RawMessage) (stateBindingConfig, error) {
	var c stateBindingConfig
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&c); err != nil {
		return c, err
	}
	return c, nil
}

// matches reports whether the binding wants the event (its condition
// function, if any, is asked separately).
func (c stateBindingConfig) matches(ev stateEvent) bool {
	return (c.Scope == nil || *c.Scope == ev.Scope) && (c.Key == nil || *c.Key == ev.Key)
}

// stateChanged queues the event of a write in namespace ns for the
// bindings of that namespace's state trigger type. It never blocks the
// write. Before a late default state worker has registered (StartState)
// there is no trigger: a row seeded then (SetState) fires nothing, then or
// later. Another namespace has a store only once its state worker is there
// (StartStateIn).
func (s *Engine) stateChanged(ns, eventType, scope, key string, oldValue, newValue json.RawMessage) {
	if ns == DefaultNamespace && s.stateWorkerAbsent() {
		return
	}
	ev := stateEvent{namespace: ns, Type: triggerState, EventType: eventType, Scope: scope, Key: key,
		OldValue: jsonOrNull(oldValue), NewValue: jsonOrNull(newValue)}
	s.stateEvents.push(ev)
}

// deliverStateEvents runs until the engine closes, delivering the queued
// state events in the order of the writes.
func (s *Engine) deliverStateEvents() {
	defer s.bg.Done()
	s.stateEvents.run(s.quit, s.deliverStateEvent)
}

// deliverStateEvent calls each matching binding bound to the state
// trigger type of the write's namespace, in id order, each in the
// binding's namespace; a binding with a condition function is called
// only when the condition returns true. Without Options.StateWindow it
// waits for each call before the next, and returns false when the engine
// is closing; with it, it hands the event to each binding's queue
// (state_binding_queue.go).
func (s *Engine) deliverStateEvent(ev stateEvent) bool {
	targets := s.liveBindingsAt(ev.namespace, triggerState)
	if len(targets) == 0 {
		return true
	}
	payload := encodeStateEvent(ev) // state_event_encode.go
	for _, b := range targets {
		cfg, err := parseStateConfig(b.config)
		if err != nil || !cfg.matches(ev) {
			continue
		}
		if s.opts.StateWindow > 0 {
			s.enqueueState(b, cfg.ConditionFunctionID, payload)
		} else if !s.fireBinding(b, cfg.ConditionFunctionID, payload) {
			return false
		}
	}
	return true
}

// checkStateBinding validates a new binding of the state trigger type:
// nil, or the error the engine answers with.
func checkStateBinding(m wire.RegisterTrigger) *wire.ErrorBody {
	if _, err := parseStateConfig(m.Config); err != nil {
		return &wire.ErrorBody{Code: "trigger_registration_failed", Message: fmt.Sprintf(
			"Failed to parse trigger config: expected an object with optional string fields scope, key and condition_function_id (%v)", err)}
	}
	return nil
}

// jsonOrNull is raw, or null for an absent value.
func jsonOrNull(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return json.RawMessage("null")
	}
	return raw
}
