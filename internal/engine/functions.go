package engine

import (
	"encoding/json"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// builtinFunc is an in-process engine function. data is the canonical
// input; a nil result means the invocationresult has no result field.
type builtinFunc func(s *Engine, data json.RawMessage) (json.RawMessage, *wire.ErrorBody)

// elementsFunc is an in-process function whose result is a JSON array,
// given as its elements: each one valid JSON that no one changes (the
// state store's values). A caller that writes the result to a socket
// sends them from where they lie instead of joining them
// (docs/decisions.md D52); its builtinFunc is the same result joined.
type elementsFunc func(s *Engine, data json.RawMessage) ([]json.RawMessage, *wire.ErrorBody)

// function is one registered function: owned by a worker connection, or
// run in-process.
type function struct {
	id             string
	description    string
	requestFormat  json.RawMessage
	responseFormat json.RawMessage
	metadata       json.RawMessage
	owner          *conn        // worker-owned functions
	run            builtinFunc  // in-process functions
	elements       elementsFunc // in-process functions with an array result; may be nil
	workerName     string       // in-process worker that provides it
}

// builtinSpec declares one in-process function.
type builtinSpec struct {
	worker      string
	id          string
	description string
	run         builtinFunc
}

// In-process workers whose functions this engine carries, with the
// descriptions the engine registers them with.
const (
	stateWorkerName           = "iii-state"
	stateWorkerDescription    = "Distributed key-value state management with reactive change triggers."
	engineFnWorkerName        = "iii-engine-functions"
	engineFnWorkerDescription = "Core engine introspection (engine::*) and platform authoring reference."
)

// builtinTable lists every in-process function.
func builtinTable() []builtinSpec {
	return append(stateBuiltins(), engineBuiltins()...)
}

// builtinElements gives the in-process functions whose array result a
// reply can write element by element: their results as elements.
var builtinElements = map[string]elementsFunc{
	"state::list": stateListElements,
}

// installBuiltinsLocked (re)installs every in-process function and trigger
// type that is missing, as a freshly started engine has them.
func (r *registry) installBuiltinsLocked() {
	for _, b := range builtinTable() {
		if r.functions[b.id] == nil {
			r.functions[b.id] = &function{
				id: b.id, description: b.description, run: b.run, elements: builtinElements[b.id], workerName: b.worker,
			}
		}
	}
	for _, t := range builtinTriggerTypes() {
		if t.id == triggerState && r.withoutStateTrigger {
			continue
		}
		if r.types[t.id] == nil {
			r.types[t.id] = t
		}
	}
	r.installConfigurationLocked()
	r.notifyLocked()
}

// registerFunction applies a registerfunction frame: last writer wins and
// takes ownership (0.22.1). No acknowledgement is sent.
func (s *Engine) registerFunction(c *conn, m wire.RegisterFunction) {
	if m.Invocation != nil {
		s.registerHTTPFunction(c, m)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.dead {
		return
	}
	if prev := s.functions[m.ID]; prev != nil && prev.owner != nil && prev.owner != c && !prev.owner.dead {
		c.log.Warn("function ownership transferred between two live workers",
			zap.String("function_id", m.ID), zap.String("previous_owner", prev.owner.id))
	}
	s.functions[m.ID] = &function{
		id:             m.ID,
		description:    m.Description,
		requestFormat:  canonical(m.RequestFormat),
		responseFormat: canonical(m.ResponseFormat),
		metadata:       canonical(m.Metadata),
		owner:          c,
	}
	c.functionIDs[m.ID] = struct{}{}
	s.notifyLocked()
	c.log.Debug("function registered", zap.String("function_id", m.ID))
}

// registerHTTPFunction handles a registration with an "invocation" block.
// The engine would call the URL itself through its http-functions worker;
// this engine has none, so a well-formed block is logged and ignored, and a
// malformed one drops the frame as the engine's decoder would.
func (s *Engine) registerHTTPFunction(c *conn, m wire.RegisterFunction) {
	var inv struct {
		URL *string `json:"url"`
	}
	if err := json.Unmarshal(m.Invocation, &inv); err != nil || inv.URL == nil {
		c.log.Debug("dropped frame", zap.String("type", wire.TypeRegisterFunction),
			zap.String("reason", "invocation needs a url string"))
		return
	}
	c.log.Warn("HTTP-invoked functions are not supported by the local engine; registration ignored",
		zap.String("function_id", m.ID), zap.String("url", *inv.URL))
}

// unregisterFunction removes a function only if the sender still owns it.
func (s *Engine) unregisterFunction(c *conn, m wire.UnregisterFunction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(c.functionIDs, m.ID)
	if f := s.functions[m.ID]; f != nil && f.owner == c {
		delete(s.functions, m.ID)
		s.notifyLocked()
		c.log.Debug("function unregistered", zap.String("function_id", m.ID))
	}
}

// releaseFunctionsLocked removes every function c still owns (disconnect
// cleanup); functions re-registered by another connection survive.
func (s *Engine) releaseFunctionsLocked(c *conn) {
	for id := range c.functionIDs {
		if f := s.functions[id]; f != nil && f.owner == c {
			delete(s.functions, id)
		}
	}
}

// workerNameLocked is the worker_name the engine shows for a function: the
// in-process worker, the owner's reported name, or the id's first "::"
// segment.
func (s *Engine) workerNameLocked(f *function) string {
	if f.run != nil {
		return f.workerName
	}
	if f.owner != nil && f.owner.meta.name != nil {
		return *f.owner.meta.name
	}
	return firstSegment(f.id)
}
