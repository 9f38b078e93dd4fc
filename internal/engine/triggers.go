package engine

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// triggerType is a registered trigger type. A worker-provided type learns
// of bindings through registertrigger/unregistertrigger frames; a built-in
// one (provider nil) accepts every binding silently.
type triggerType struct {
	id          string
	description string
	worker      string // the in-process worker of an engine-provided type

	requestFormat json.RawMessage // trigger_request_format
	callFormat    json.RawMessage // call_request_format
	provider      *conn
}

// binding is a registered trigger: "when type fires, call function". Ids
// are global and unowned; owner is the connection that registered it last.
type binding struct {
	id          string
	triggerType string
	functionID  string
	config      json.RawMessage
	metadata    json.RawMessage
	owner       *conn
}

// Engine-provided trigger types.
const (
	triggerFunctionsAvailable = "engine::functions-available"
	triggerWorkersAvailable   = "engine::workers-available"
)

func builtinTriggerTypes() []*triggerType {
	return []*triggerType{
		{id: triggerFunctionsAvailable, description: "Triggered when functions are registered/unregistered", worker: engineFnWorkerName},
		{id: triggerWorkersAvailable, description: "Triggered when workers connect/disconnect", worker: engineFnWorkerName},
		{id: triggerState, description: triggerStateDescription, worker: stateWorkerName},
	}
}

func (b *binding) registerFrame() wire.RegisterTrigger {
	return wire.RegisterTrigger{ID: b.id, TriggerType: b.triggerType, FunctionID: b.functionID,
		Config: b.config, Metadata: b.metadata}
}

// registerTriggerType makes c the provider of a type (replacing any
// previous provider, which is not told) and sends it every live and parked
// binding of that type.
func (s *Engine) registerTriggerType(c *conn, m wire.RegisterTriggerType) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.dead {
		return
	}
	// Parked bindings whose owner is gone are swept before the replay.
	for id, b := range s.parked {
		if b.owner != nil && b.owner.dead {
			delete(s.parked, id)
		}
	}
	tt := &triggerType{id: m.ID, description: m.Description,
		requestFormat: canonical(m.TriggerRequestFormat), callFormat: canonical(m.CallRequestFormat), provider: c}
	s.types[m.ID] = tt
	for _, id := range slices.Sorted(maps.Keys(s.bindings)) {
		if b := s.bindings[id]; b.triggerType == m.ID {
			c.send(b.registerFrame())
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.parked)) {
		b := s.parked[id]
		if b.triggerType != m.ID {
			continue
		}
		if c.send(b.registerFrame()) {
			delete(s.parked, id)
			s.bindings[id] = b
			c.log.Info("parked trigger recovered", zap.String("trigger_id", id), zap.String("trigger_type", m.ID))
		}
	}
	s.notifyLocked()
	c.log.Info("trigger type registered", zap.String("trigger_type", m.ID))
}

// registerTrigger stores a binding. An unknown type parks it silently; a
// worker-provided type gets it forwarded without waiting for the answer.
func (s *Engine) registerTrigger(c *conn, m wire.RegisterTrigger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.dead {
		return
	}
	b := &binding{id: m.ID, triggerType: m.TriggerType, functionID: m.FunctionID,
		config: canonical(m.Config), metadata: canonical(m.Metadata), owner: c}
	tt := s.types[m.TriggerType]
	if tt != nil && tt.provider == nil {
		if e := checkBuiltinBinding(m); e != nil {
			c.send(wire.TriggerRegistrationResult{ID: m.ID, TriggerType: m.TriggerType, FunctionID: m.FunctionID, Error: e})
			return
		}
	}
	// The same id replaces the previous binding
	// (docs/protocol.md#trigger-types-and-bindings). When the new one
	// goes to another type, or is parked, the old provider is told, so it
	// does not keep a subscriber that no longer exists.
	if old := s.bindings[m.ID]; old != nil && (tt == nil || old.triggerType != m.TriggerType) {
		delete(s.bindings, m.ID)
		if ot := s.types[old.triggerType]; ot != nil && ot.provider != nil {
			ot.provider.send(wire.UnregisterTrigger{ID: old.id, TriggerType: old.triggerType})
		}
	}
	switch {
	case tt == nil:
		s.parked[m.ID] = b
		c.log.Info("trigger parked: its type is not registered",
			zap.String("trigger_id", m.ID), zap.String("trigger_type", m.TriggerType))
	case tt.provider != nil && !tt.provider.send(b.registerFrame()):
		delete(s.bindings, m.ID)
		s.parked[m.ID] = b
	default:
		delete(s.parked, m.ID)
		s.bindings[m.ID] = b
	}
	s.notifyLocked()
}

// unregisterTrigger removes a binding by id, whoever registered it, and
// tells the provider when it was live.
func (s *Engine) unregisterTrigger(c *conn, m wire.UnregisterTrigger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bindings[m.ID]
	if b == nil {
		delete(s.parked, m.ID)
		s.notifyLocked()
		return
	}
	if tt := s.types[b.triggerType]; tt != nil && tt.provider != nil {
		tt.provider.send(wire.UnregisterTrigger{ID: b.id, TriggerType: b.triggerType})
	}
	delete(s.bindings, m.ID)
	delete(s.parked, m.ID)
	s.notifyLocked()
	c.log.Debug("trigger unregistered", zap.String("trigger_id", m.ID))
}

// triggerResult handles a provider's triggerregistrationresult: success is
// swallowed; an error parks the binding again and is forwarded to the
// binding's owner. Results from anyone but the type's provider are ignored.
func (s *Engine) triggerResult(c *conn, m wire.TriggerRegistrationResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bindings[m.ID]
	if b == nil {
		c.log.Debug("dropped triggerregistrationresult for an unknown or parked trigger", zap.String("trigger_id", m.ID))
		return
	}
	if tt := s.types[b.triggerType]; tt == nil || tt.provider != c {
		c.log.Debug("dropped triggerregistrationresult from a worker that does not provide the type",
			zap.String("trigger_id", m.ID))
		return
	}
	if m.Error == nil {
		return
	}
	delete(s.bindings, m.ID)
	s.parked[m.ID] = b
	s.notifyLocked()
	c.log.Info("trigger rejected by its provider; parked",
		zap.String("trigger_id", m.ID), zap.String("code", m.Error.Code))
	if b.owner != nil && !b.owner.dead {
		b.owner.send(wire.TriggerRegistrationResult{ID: b.id, TriggerType: b.triggerType,
			FunctionID: b.functionID, Error: m.Error})
	}
}

// releaseTriggersLocked is the trigger part of c's disconnect cleanup: its
// live bindings are removed (providers are told), its parked ones dropped,
// and the types it provided removed with other workers' bindings parked.
func (s *Engine) releaseTriggersLocked(c *conn) {
	for _, id := range slices.Sorted(maps.Keys(s.bindings)) {
		b := s.bindings[id]
		if b.owner != c {
			continue
		}
		delete(s.bindings, id)
		if tt := s.types[b.triggerType]; tt != nil && tt.provider != nil {
			tt.provider.send(wire.UnregisterTrigger{ID: b.id, TriggerType: b.triggerType})
		}
	}
	for id, b := range s.parked {
		if b.owner == c {
			delete(s.parked, id)
		}
	}
	for typeID, tt := range s.types {
		if tt.provider != c {
			continue
		}
		delete(s.types, typeID)
		for id, b := range s.bindings {
			if b.triggerType == typeID {
				delete(s.bindings, id)
				s.parked[id] = b
				c.log.Info("trigger disabled until its type returns",
					zap.String("trigger_id", id), zap.String("trigger_type", typeID))
			}
		}
	}
}

// fire calls every live binding of a type with data, as the engine does for
// its own trigger types: engine-originated calls, payload untouched, the
// binding's metadata passed along, results discarded.
func (s *Engine) fire(triggerTypeID string, data any) {
	payload := mustEncode(data)
	for _, b := range s.liveBindings(triggerTypeID) {
		s.call(callRequest{functionID: b.functionID, data: payload, metadata: b.metadata})
	}
}

// liveBindings returns the live bindings of a trigger type in id order, as
// the engine calls them.
func (s *Engine) liveBindings(triggerTypeID string) []*binding {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*binding
	for _, id := range slices.Sorted(maps.Keys(s.bindings)) {
		if b := s.bindings[id]; b.triggerType == triggerTypeID {
			out = append(out, b)
		}
	}
	return out
}

// defaultFunctionsPollInterval is how often the engine checks whether the
// set of function ids changed before firing engine::functions-available.
const defaultFunctionsPollInterval = 5 * time.Second

// watchFunctions fires engine::functions-available with every function's
// summary when the set of function ids changed since the last check. last
// is the signature at start, taken by the caller before any worker can
// connect, so a change made before this goroutine first runs still fires.
func (s *Engine) watchFunctions(last string) {
	defer s.bg.Done()
	ticker := time.NewTicker(s.opts.FunctionsPollInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-ticker.C:
		}
		sig := s.functionIDsSignature()
		if sig == last {
			continue
		}
		last = sig
		s.mu.Lock()
		summaries := make([]map[string]any, 0, len(s.functions))
		for _, id := range slices.Sorted(maps.Keys(s.functions)) {
			summaries = append(summaries, s.summaryLocked(s.functions[id]))
		}
		s.mu.Unlock()
		s.fire(triggerFunctionsAvailable, map[string]any{"event": "functions_changed", "functions": summaries})
	}
}

func (s *Engine) functionIDsSignature() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(slices.Sorted(maps.Keys(s.functions)), "\x00")
}
