package engine

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// triggerType is a registered trigger type, keyed by (namespace, id). A
// worker-provided type learns of bindings through
// registertrigger/unregistertrigger frames; a built-in one (provider nil)
// accepts every binding silently.
type triggerType struct {
	namespace   string // the namespace it serves; "" reads as the default one (ns)
	id          string
	description string
	worker      string // the in-process worker of an engine-provided type

	requestFormat json.RawMessage // trigger_request_format
	callFormat    json.RawMessage // call_request_format
	provider      *conn
}

// ns is the namespace the type serves.
func (t *triggerType) ns() string { return cmp.Or(t.namespace, DefaultNamespace) }

// binding is a registered trigger: "when type fires, call function". Ids
// are global and unowned; owner is the connection that registered it last.
//
// A binding names two namespaces (Options.Namespaces; all are the default
// one for a 0.22.1 engine, and "" reads as the default one): namespace,
// where the function resolves when it fires, and the provider's, found
// in triggerNamespace when the frame named one (strict), otherwise in the
// registering connection's namespace (home) first and the default one
// second. providerNS is where a live binding's provider was found.
type binding struct {
	id          string
	triggerType string
	functionID  string
	config      json.RawMessage
	metadata    json.RawMessage
	owner       *conn

	namespace        string
	triggerNamespace string
	home             string
	providerNS       string
}

// target is where the binding's function resolves when it fires.
func (b *binding) target() string { return cmp.Or(b.namespace, DefaultNamespace) }

// homeNS is the registering connection's namespace.
func (b *binding) homeNS() string { return cmp.Or(b.home, DefaultNamespace) }

// provNS is the namespace of the provider a live binding is bound to.
func (b *binding) provNS() string { return cmp.Or(b.providerNS, DefaultNamespace) }

// onFallback reports whether a live binding fell back to the default
// namespace's provider and would rather have one at home.
func (b *binding) onFallback() bool {
	return b.triggerNamespace == "" && b.provNS() != b.homeNS()
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
		stateTypeIn(""),
	}
}

// registerFrame is the binding as its provider is sent it: the two
// namespaces only when they are not the default one.
func (b *binding) registerFrame() wire.RegisterTrigger {
	m := wire.RegisterTrigger{ID: b.id, TriggerType: b.triggerType, FunctionID: b.functionID,
		Config: b.config, Metadata: b.metadata}
	if ns := b.target(); ns != DefaultNamespace {
		m.Namespace = ns
	}
	if ns := b.provNS(); ns != DefaultNamespace {
		m.TriggerNamespace = ns
	}
	return m
}

// registerTriggerType makes c the provider of a type (replacing any
// previous provider, which is not told) in the frame's namespace, or c's,
// and sends it every live binding it now serves and every parked one that
// now resolves to it. A provider outside the default namespace also claims
// back the bindings of its home that fell back to the default one.
func (s *Engine) registerTriggerType(c *conn, m wire.RegisterTriggerType, blank string) {
	if blank != "" {
		c.log.Error(blankNamespaceError(blank).Message, zap.String("trigger_type", m.ID))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.dead {
		return
	}
	ns := c.ns()
	if s.namespaces && m.Namespace != "" {
		ns = m.Namespace
	}
	s.addTriggerTypeLocked(&triggerType{namespace: ns, id: m.ID, description: m.Description,
		requestFormat: canonical(m.TriggerRequestFormat), callFormat: canonical(m.CallRequestFormat), provider: c}, c.log)
}

// addTriggerTypeLocked installs tt in its namespace, replacing any
// previous provider, and offers it every live binding it now serves and
// every parked one that now resolves to it (offerLocked): a worker's type
// as registerTriggerType registers it, or the in-process state worker's
// when it registers late (StartState). A provider outside the default
// namespace also claims back the bindings of its home that fell back to
// the default one.
func (s *Engine) addTriggerTypeLocked(tt *triggerType, log *zap.Logger) {
	ns := tt.ns()
	// Parked bindings whose owner is gone are swept before the replay.
	for id, b := range s.parked {
		if b.owner != nil && b.owner.dead {
			delete(s.parked, id)
		}
	}
	s.putTypeLocked(tt)
	if tt.provider != nil {
		for _, id := range slices.Sorted(maps.Keys(s.bindings)) {
			if b := s.bindings[id]; b.triggerType == tt.id && b.provNS() == ns {
				tt.provider.send(b.registerFrame())
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.parked)) {
		b := s.parked[id]
		if b.triggerType != tt.id || s.resolveProviderLocked(b) != tt {
			continue
		}
		if s.offerLocked(tt, b) {
			delete(s.parked, id)
			s.bindings[id] = b
			log.Info("parked trigger recovered", zap.String("trigger_id", id), zap.String("trigger_type", tt.id))
		}
	}
	if ns != DefaultNamespace {
		s.claimBackLocked(tt)
	}
	s.notifyLocked()
	log.Info("trigger type registered", zap.String("trigger_type", tt.id), zap.String("namespace", ns))
}

// offerLocked hands a parked binding to tt and reports whether it is live
// now: a worker provider is sent its registertrigger (bindLocked), an
// in-process type checks it and tells the binding's owner of a refusal
// (acceptInProcessLocked, state_worker.go).
func (s *Engine) offerLocked(tt *triggerType, b *binding) bool {
	if tt.provider != nil {
		return bindLocked(tt, b)
	}
	b.providerNS = tt.ns()
	return s.acceptInProcessLocked(tt, b)
}

// registerTrigger stores a binding. An unknown type parks it silently; a
// worker-provided type gets it forwarded without waiting for the answer.
// blank names a namespace field given blank, which is refused.
func (s *Engine) registerTrigger(c *conn, m wire.RegisterTrigger, blank string) {
	if blank != "" {
		c.send(wire.TriggerRegistrationResult{ID: m.ID, TriggerType: m.TriggerType, FunctionID: m.FunctionID,
			Error: blankNamespaceError(blank)})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.dead {
		return
	}
	b := &binding{id: m.ID, triggerType: m.TriggerType, functionID: m.FunctionID,
		config: canonical(m.Config), metadata: canonical(m.Metadata), owner: c}
	if s.namespaces {
		b.namespace, b.triggerNamespace, b.home = cmp.Or(m.Namespace, DefaultNamespace), m.TriggerNamespace, c.ns()
	}
	tt := s.resolveProviderLocked(b)
	if tt != nil && tt.provider == nil {
		if e := checkBuiltinBinding(m); e != nil {
			c.send(wire.TriggerRegistrationResult{ID: m.ID, TriggerType: m.TriggerType, FunctionID: m.FunctionID, Error: e})
			return
		}
	}
	// The same id replaces the previous binding
	// (docs/protocol.md#trigger-types-and-bindings). When the new one
	// goes to another provider, or is parked, the old provider is told, so
	// it does not keep a subscriber that no longer exists.
	if old := s.bindings[m.ID]; old != nil && (tt == nil || old.triggerType != m.TriggerType || old.provNS() != tt.ns()) {
		delete(s.bindings, m.ID)
		s.tellUnboundLocked(old)
	}
	switch {
	case tt == nil:
		s.parked[m.ID] = b
		c.log.Info("trigger parked: its type is not registered",
			zap.String("trigger_id", m.ID), zap.String("trigger_type", m.TriggerType))
	case !bindLocked(tt, b):
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
	s.tellUnboundLocked(b)
	delete(s.bindings, m.ID)
	delete(s.parked, m.ID)
	s.notifyLocked()
	c.log.Debug("trigger unregistered", zap.String("trigger_id", m.ID))
}

// triggerResult handles a provider's triggerregistrationresult: success is
// swallowed; an error parks the binding again and is forwarded to the
// binding's owner. Results from anyone but the binding's provider are
// ignored.
func (s *Engine) triggerResult(c *conn, m wire.TriggerRegistrationResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bindings[m.ID]
	if b == nil {
		c.log.Debug("dropped triggerregistrationresult for an unknown or parked trigger", zap.String("trigger_id", m.ID))
		return
	}
	if tt := s.providerLocked(b); tt == nil || tt.provider != c {
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
// and the types it provided removed. Other workers' bindings of those
// types go to the provider they resolve to now (a binding that was at
// home falls back to the default namespace's), or are parked.
func (s *Engine) releaseTriggersLocked(c *conn) {
	for _, id := range slices.Sorted(maps.Keys(s.bindings)) {
		b := s.bindings[id]
		if b.owner != c {
			continue
		}
		delete(s.bindings, id)
		s.tellUnboundLocked(b)
	}
	for id, b := range s.parked {
		if b.owner == c {
			delete(s.parked, id)
		}
	}
	for _, e := range nsAll(s.types, s.nsTypes) {
		if e.v.provider != c {
			continue
		}
		s.deleteTypeLocked(e.namespace, e.id)
		for _, id := range slices.Sorted(maps.Keys(s.bindings)) {
			b := s.bindings[id]
			if b.triggerType != e.id || b.provNS() != e.namespace {
				continue
			}
			delete(s.bindings, id)
			if next := s.resolveProviderLocked(b); next != nil && bindLocked(next, b) {
				s.bindings[id] = b
				c.log.Info("trigger fell back to another namespace's provider after its provider left",
					zap.String("trigger_id", id), zap.String("namespace", next.ns()))
				continue
			}
			s.parked[id] = b
			c.log.Info("trigger disabled until its type returns",
				zap.String("trigger_id", id), zap.String("trigger_type", e.id))
		}
	}
}

// fire calls every live binding of a type with data, as the engine does for
// its own trigger types: engine-originated calls in each binding's
// namespace, payload untouched, the binding's metadata passed along,
// results discarded.
func (s *Engine) fire(triggerTypeID string, data any) {
	payload := mustEncode(data)
	for _, b := range s.liveBindings(triggerTypeID) {
		s.call(callRequest{namespace: b.target(), functionID: b.functionID, data: payload, metadata: b.metadata})
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

// liveBindingsAt is liveBindings for the bindings bound to the type's
// provider in namespace ns.
func (s *Engine) liveBindingsAt(ns, triggerTypeID string) []*binding {
	return slices.DeleteFunc(s.liveBindings(triggerTypeID), func(b *binding) bool { return b.provNS() != ns })
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
		all := nsAll(s.functions, s.nsFunctions)
		summaries := make([]map[string]any, 0, len(all))
		for _, e := range all {
			summaries = append(summaries, s.summaryLocked(e.v))
		}
		s.mu.Unlock()
		s.fire(triggerFunctionsAvailable, map[string]any{"event": "functions_changed", "functions": summaries})
	}
}

func (s *Engine) functionIDsSignature() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, e := range nsAll(s.functions, s.nsFunctions) {
		b.WriteString(strconv.Quote(e.namespace))
		b.WriteString(strconv.Quote(e.id))
	}
	return b.String()
}
