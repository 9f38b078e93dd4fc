package engine

import (
	"cmp"
	"encoding/json"
	"slices"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// builtinFunc is an in-process engine function. ns is the namespace it is
// registered in, and so runs in (a state worker's functions use that
// namespace's store); data is the canonical input; a nil result means the
// invocationresult has no result field.
type builtinFunc func(s *Engine, ns string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody)

// elementsFunc is an in-process function whose result is a JSON array,
// given as its elements: each one valid JSON that no one changes (the
// state store's values). A caller that writes the result to a socket
// sends them from where they lie instead of joining them
// (docs/decisions.md D52); its builtinFunc is the same result joined.
type elementsFunc func(s *Engine, ns string, data json.RawMessage) ([]json.RawMessage, *wire.ErrorBody)

// voidFunc is an in-process function as a void call runs it: nobody
// waits for its result, so it need not finish before the caller's next
// frame is read (publish, pubsub.go).
type voidFunc func(s *Engine, ns string, data json.RawMessage)

// builtinVoid gives the in-process functions that run otherwise when no
// one waits for them.
var builtinVoid = map[string]voidFunc{
	pubsubPublish: publishVoid,
}

// function is one registered function: owned by a worker connection, or
// run in-process.
type function struct {
	namespace      string // "" reads as DefaultNamespace (ns)
	id             string
	description    string
	requestFormat  json.RawMessage
	responseFormat json.RawMessage
	metadata       json.RawMessage
	owner          *conn        // worker-owned functions
	run            builtinFunc  // in-process functions
	elements       elementsFunc // in-process functions with an array result; may be nil
	void           voidFunc     // in-process functions with a way of their own for void calls; may be nil
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
// type that is missing, as a freshly started engine has them: all of them
// in the default namespace, and the state workers of other namespaces
// (StartStateIn) in theirs.
func (r *registry) installBuiltinsLocked() {
	types := builtinTriggerTypes()
	if !r.stateTriggerOfferedLocked() {
		types = slices.DeleteFunc(types, func(t *triggerType) bool { return t.id == triggerState })
	}
	r.installLocked(DefaultNamespace, r.builtinsLocked(), types)
	var stateTypes []*triggerType
	if !r.withoutStateTrigger {
		stateTypes = []*triggerType{stateTypeIn("")}
	}
	for _, ns := range r.stateNamespacesLocked() {
		r.installLocked(ns, r.stateSpecsLocked(), stateTypes)
	}
	r.installConfigurationLocked()
	r.installPubSubLocked()
	r.notifyLocked()
}

// installLocked installs in-process functions and trigger types in ns,
// each unless ns already has one of that id. Every built-in is installed
// through here.
func (r *registry) installLocked(ns string, fns []builtinSpec, types []*triggerType) {
	for _, b := range fns {
		if r.functionLocked(ns, b.id) == nil {
			r.putFunctionLocked(&function{namespace: ns, id: b.id, description: b.description, run: b.run,
				elements: builtinElements[b.id], void: builtinVoid[b.id], workerName: b.worker})
		}
	}
	for _, t := range types {
		if r.typeLocked(ns, t.id) == nil {
			tt := *t
			tt.namespace = ns
			r.putTypeLocked(&tt)
		}
	}
}

// ns is the namespace the function is registered in.
func (f *function) ns() string { return cmp.Or(f.namespace, DefaultNamespace) }

// registerFunction applies a registerfunction frame in the connection's
// namespace. A 0.22.1 engine lets the last writer win and take ownership;
// with Options.Namespaces a key another live connection owns is refused
// (refusalLocked). No acknowledgement is sent.
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
	ns := c.ns()
	if rej := s.refusalLocked(c, ns, m.ID); rej != nil {
		c.send(*rej)
		return
	}
	if prev := s.functionLocked(ns, m.ID); prev != nil && prev.owner != nil && prev.owner != c && !prev.owner.dead {
		c.log.Warn("function ownership transferred between two live workers",
			zap.String("function_id", m.ID), zap.String("previous_owner", prev.owner.id))
	}
	s.putFunctionLocked(&function{
		namespace:      ns,
		id:             m.ID,
		description:    m.Description,
		requestFormat:  canonical(m.RequestFormat),
		responseFormat: canonical(m.ResponseFormat),
		metadata:       canonical(m.Metadata),
		owner:          c,
	})
	c.functionIDs[m.ID] = struct{}{}
	s.notifyLocked()
	c.log.Debug("function registered", zap.String("function_id", m.ID), zap.String("namespace", ns))
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
	// The engine refuses the key before it looks for its HTTP worker.
	s.mu.Lock()
	rej := s.refusalLocked(c, c.ns(), m.ID)
	if rej != nil && !c.dead {
		c.send(*rej)
	}
	s.mu.Unlock()
	if rej != nil {
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
	if f := s.functionLocked(c.ns(), m.ID); f != nil && f.owner == c {
		s.deleteFunctionLocked(c.ns(), m.ID)
		s.notifyLocked()
		c.log.Debug("function unregistered", zap.String("function_id", m.ID))
	}
}

// releaseFunctionsLocked removes every function c still owns (disconnect
// cleanup); functions re-registered by another connection survive.
func (s *Engine) releaseFunctionsLocked(c *conn) {
	for id := range c.functionIDs {
		if f := s.functionLocked(c.ns(), id); f != nil && f.owner == c {
			s.deleteFunctionLocked(c.ns(), id)
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
