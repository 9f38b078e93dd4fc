package engine

import (
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// route applies one decoded frame from worker c. It runs in c's read loop,
// so a connection's frames take effect in arrival order; calls to worker
// functions are only queued here and complete when the callee answers.
func (s *Engine) route(c *conn, m wire.Message) {
	s.routeFrame(c, m, nil)
}

// routeFrame is route given the frame's bytes as well, which the
// namespace rules read for a namespace field given as "" (blankNamespace).
// With Options.Namespaces registration frames wait for the connection's
// namespace (holdRegistration).
func (s *Engine) routeFrame(c *conn, m wire.Message, raw []byte) {
	blank := ""
	if s.namespaces {
		blank = blankNamespace(m, raw)
	}
	if isRegistration(m) {
		h := heldFrame{m: m, blank: blank}
		if !s.namespaces || !s.holdRegistration(c, h) {
			s.applyRegistration(c, h)
		}
		return
	}
	switch m := m.(type) {
	case wire.InvokeFunction:
		if reason := invalidAction(m.Action); reason != "" {
			dropped(c, m, reason)
			return
		}
		if blank != "" {
			s.refuseBlankNamespace(c, m, blank)
			return
		}
		s.invoke(c, m)
	case wire.InvocationResult:
		s.complete(c, m)
	case wire.TriggerRegistrationResult:
		s.triggerResult(c, m)
	case wire.Ping:
		c.send(wire.Pong{})
	case wire.Pong, wire.WorkerRegistered:
		// Nothing to do: pongs are not awaited, workerregistered is ours.
	case wire.Reattach:
		s.reattach(c, m)
	default:
		// registrationrejected and anything newer is not part of the
		// worker-to-engine protocol.
		dropped(c, m, "not a frame the engine accepts from workers")
	}
}

// applyRegistration applies a registration frame in c's namespace.
func (s *Engine) applyRegistration(c *conn, h heldFrame) {
	switch m := h.m.(type) {
	case wire.RegisterFunction:
		s.registerFunction(c, m)
	case wire.UnregisterFunction:
		s.unregisterFunction(c, m)
	case wire.RegisterTriggerType:
		s.registerTriggerType(c, m, h.blank)
	case wire.RegisterTrigger:
		s.registerTrigger(c, m, h.blank)
	case wire.UnregisterTrigger:
		s.unregisterTrigger(c, m)
	case wire.RegisterService:
		c.log.Debug("service registered", zap.String("service_id", m.ID))
	}
}

// invalidAction reports why the engine's decoder would refuse an action.
func invalidAction(a *wire.Action) string {
	switch {
	case a == nil, a.Type == wire.ActionVoid:
		return ""
	case a.Type == wire.ActionEnqueue:
		if a.Queue == "" {
			return `enqueue action needs a "queue"`
		}
		return ""
	default:
		return "unknown action type " + a.Type
	}
}

func dropped(c *conn, m wire.Message, reason string) {
	c.log.Debug("dropped frame", zap.String("type", m.MessageType()), zap.String("reason", reason))
}
