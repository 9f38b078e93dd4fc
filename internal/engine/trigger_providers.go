package engine

import (
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Which provider serves a binding. A 0.22.1 engine has one namespace, so
// one provider per trigger type id; with Options.Namespaces a provider is
// keyed by (namespace, id) and a binding finds its own
// (docs/engine.md, "Namespaces (0.23 mode)").

// resolveProviderLocked finds the type that serves b: in its
// triggerNamespace only, when it named one; otherwise at home, then in
// the default namespace. Nil when nothing provides it.
func (s *Engine) resolveProviderLocked(b *binding) *triggerType {
	if b.triggerNamespace != "" {
		return s.typeLocked(b.triggerNamespace, b.triggerType)
	}
	if t := s.typeLocked(b.homeNS(), b.triggerType); t != nil {
		return t
	}
	return s.typeLocked(DefaultNamespace, b.triggerType)
}

// providerLocked is the type a live binding is bound to.
func (s *Engine) providerLocked(b *binding) *triggerType {
	return s.typeLocked(b.provNS(), b.triggerType)
}

// bindLocked hands b to tt: a worker provider is sent it (false if its
// connection is gone), a built-in one accepts it, but the state trigger
// only with a config it can read.
func bindLocked(tt *triggerType, b *binding) bool {
	b.providerNS = tt.ns()
	if tt.provider != nil {
		return tt.provider.send(b.registerFrame())
	}
	if tt.id == triggerState {
		_, err := parseStateConfig(b.config)
		return err == nil
	}
	return true
}

// tellUnboundLocked tells a worker provider that b no longer reaches it.
func (s *Engine) tellUnboundLocked(b *binding) {
	if tt := s.providerLocked(b); tt != nil && tt.provider != nil {
		tt.provider.send(wire.UnregisterTrigger{ID: b.id, TriggerType: b.triggerType})
	}
}

// claimBackLocked moves to tt the live bindings of its home namespace that
// fell back to the default namespace's provider before tt existed; the
// old provider is told first. tt is a worker's type, or a state worker's
// (StartStateIn), which has no provider connection.
func (s *Engine) claimBackLocked(tt *triggerType) {
	for _, id := range slices.Sorted(maps.Keys(s.bindings)) {
		b := s.bindings[id]
		if b.triggerType != tt.id || b.homeNS() != tt.ns() || !b.onFallback() {
			continue
		}
		s.tellUnboundLocked(b)
		if !bindLocked(tt, b) {
			delete(s.bindings, id)
			s.parked[id] = b
			continue
		}
		log := s.log
		if tt.provider != nil {
			log = tt.provider.log
		}
		log.Info("trigger moved to its own namespace's provider",
			zap.String("trigger_id", id), zap.String("namespace", tt.ns()))
	}
}
