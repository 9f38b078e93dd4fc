package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Engine 0.23's namespace rules (Options.Namespaces; docs/engine.md,
// "Namespaces (0.23 mode)"). A connection's namespace arrives with its
// engine::workers::register call, so its registration frames are held
// until that call, or until NamespaceGrace has passed, and then applied
// in arrival order. This file holds that machinery, the checks of blank
// namespace fields and the refusals of a registration.

// defaultNamespaceGrace is how long registrations wait for the namespace
// (the engine's REGISTRATION_NAMESPACE_GRACE, III_NAMESPACE_GRACE_MS).
const defaultNamespaceGrace = 5 * time.Second

// invalidNamespaceCode is the error code of a namespace field named and
// left blank.
const invalidNamespaceCode = "INVALID_NAMESPACE"

// nsState is where a connection is in learning its namespace. The zero
// value applies registrations at once, as a 0.22.1 engine always does.
type nsState int

const (
	nsResolved nsState = iota // namespace known (or no namespace rules): registrations apply at once
	nsPending                 // namespace unknown: registrations are held
	nsDraining                // namespace known, held registrations being applied: later ones queue behind them
	nsRejected                // worker name refused: held registrations are never applied
)

// heldFrame is a registration frame waiting for its connection's
// namespace, with the name of a namespace field it left blank ("" if
// none), which is judged when the frame arrives.
type heldFrame struct {
	m     wire.Message
	blank string
}

// isRegistration reports whether m is one of the frames the engine holds
// until the connection's namespace is known (is_namespaced_registration).
func isRegistration(m wire.Message) bool {
	switch m.(type) {
	case wire.RegisterFunction, wire.UnregisterFunction, wire.RegisterService,
		wire.RegisterTrigger, wire.UnregisterTrigger, wire.RegisterTriggerType:
		return true
	}
	return false
}

// ns is the connection's namespace: the default one until it is fixed.
func (c *conn) ns() string {
	if c.namespace == "" {
		return DefaultNamespace
	}
	return c.namespace
}

// beginNamespace puts a new connection's registrations on hold (with
// Options.Namespaces) and starts the goroutine that fixes the namespace
// to the default one when the grace period ends first. The connection's
// handler waits for it (c.graceDone) after the cleanup.
func (s *Engine) beginNamespace(c *conn) {
	c.nsDecided = make(chan struct{})
	c.graceDone = make(chan struct{})
	s.mu.Lock()
	c.nsState = nsPending
	s.mu.Unlock()
	go s.awaitNamespace(c)
}

// awaitNamespace fixes c's namespace to the default one when the grace
// period ends before anything else decided it.
func (s *Engine) awaitNamespace(c *conn) {
	defer close(c.graceDone)
	timer := time.NewTimer(s.opts.NamespaceGrace)
	defer timer.Stop()
	select {
	case <-c.nsDecided:
		return
	case <-timer.C:
	}
	s.mu.Lock()
	won := s.fixNamespaceLocked(c, DefaultNamespace)
	s.mu.Unlock()
	if !won {
		return
	}
	c.log.Warn(fmt.Sprintf("namespace registration grace of %dms expired without an engine::workers::register "+
		"announce; applying this connection's held registrations in the %q namespace",
		s.opts.NamespaceGrace.Milliseconds(), DefaultNamespace))
	s.drainHeld(c)
}

// decideLocked stops c's grace timer: the namespace is fixed, the worker
// refused, or the connection gone.
func (c *conn) decideLocked() {
	if c.nsDecided != nil && !c.decided {
		c.decided = true
		close(c.nsDecided)
	}
}

// fixNamespaceLocked fixes a pending connection's namespace to ns and
// starts draining its held frames (drainHeld applies them); false when
// the namespace was already decided, in which case it cannot change.
func (s *Engine) fixNamespaceLocked(c *conn, ns string) bool {
	if c.dead || c.nsState != nsPending {
		return false
	}
	c.namespace = ns
	c.nsState = nsDraining
	c.decideLocked()
	s.notifyLocked()
	return true
}

// drainHeld applies c's held registrations in arrival order. Frames that
// arrive meanwhile queue behind them (holdRegistration), so the order
// holds when the grace goroutine drains while c's read loop runs. It stops
// when c disconnects.
func (s *Engine) drainHeld(c *conn) {
	for {
		s.mu.Lock()
		if c.dead || c.nsState != nsDraining {
			c.held = nil
			s.mu.Unlock()
			return
		}
		if len(c.held) == 0 {
			c.held = nil
			c.nsState = nsResolved
			s.notifyLocked()
			s.mu.Unlock()
			return
		}
		h := c.held[0]
		c.held[0] = heldFrame{}
		c.held = c.held[1:]
		s.mu.Unlock()
		s.applyRegistration(c, h)
	}
}

// holdRegistration queues a registration frame while c's namespace is
// unknown or its held frames are still being applied; false means apply
// it now. A refused worker's registrations are dropped, as the engine
// never drains them.
func (s *Engine) holdRegistration(c *conn, h heldFrame) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch c.nsState {
	case nsPending, nsDraining:
		if !c.dead {
			c.held = append(c.held, h)
		}
		c.log.Debug("registration held until the connection's namespace is known",
			zap.String("type", h.m.MessageType()))
		return true
	case nsRejected:
		return true
	}
	return false
}

// blankNamespace names the first namespace field of m that was given and
// left blank (only whitespace), or returns "". A field given as "" decodes
// as absent, so raw, the frame's bytes, is read for it when there is one.
func blankNamespace(m wire.Message, raw []byte) string {
	switch m := m.(type) {
	case wire.InvokeFunction:
		return firstBlank(raw, []string{m.Namespace}, "namespace")
	case wire.RegisterTriggerType:
		return firstBlank(raw, []string{m.Namespace}, "namespace")
	case wire.RegisterTrigger:
		return firstBlank(raw, []string{m.Namespace, m.TriggerNamespace}, "namespace", "trigger_namespace")
	}
	return ""
}

// firstBlank returns the first of keys whose decoded value is blank, or
// which the frame gives as "".
func firstBlank(raw []byte, decoded []string, keys ...string) string {
	var given []json.RawMessage
	for i, key := range keys {
		if decoded[i] != "" {
			if strings.TrimSpace(decoded[i]) == "" {
				return key
			}
			continue
		}
		if raw == nil {
			continue
		}
		if given == nil {
			vals, err := wire.Members(raw, keys...)
			if err != nil {
				return ""
			}
			given = vals
		}
		if v := given[i]; v != nil && string(v) != "null" {
			return key
		}
	}
	return ""
}

// blankNamespaceError is the engine's refusal of a namespace field named
// and left blank (blank_namespace_message).
func blankNamespaceError(field string) *wire.ErrorBody {
	return &wire.ErrorBody{Code: invalidNamespaceCode, Message: fmt.Sprintf(
		"`%s` is empty: it was named and left blank. Give it a name, or omit it to use `%s`.", field, DefaultNamespace)}
}

// refusalLocked is the registrationrejected a registration of function id
// in namespace ns gets from c, or nil: with Options.Namespaces an
// engine::* id outside the default namespace is reserved, and a key that
// another live connection owns is not taken over. A connection whose
// cleanup has started is not live, and in-process functions have no owner
// (a worker may replace them, as in 0.22.1).
func (s *Engine) refusalLocked(c *conn, ns, id string) *wire.RegistrationRejected {
	if !s.namespaces {
		return nil
	}
	if strings.HasPrefix(id, "engine::") && ns != DefaultNamespace {
		c.log.Warn("refusing a reserved engine::* function id outside the default namespace",
			zap.String("function_id", id), zap.String("namespace", ns))
		return &wire.RegistrationRejected{Code: wire.CodeFunctionNamespaceConflict, Namespace: ns, FunctionID: id}
	}
	prev := s.functionLocked(ns, id)
	if prev == nil || prev.owner == nil || prev.owner == c || prev.owner.dead {
		return nil
	}
	c.log.Warn(fmt.Sprintf("Function %q in namespace %q is already owned by live worker %s; rejecting the registration. "+
		"Only one worker per namespace may own a function id: rename the function or use a different namespace.",
		id, ns, prev.owner.id))
	return &wire.RegistrationRejected{Code: wire.CodeFunctionNamespaceConflict, Namespace: ns, FunctionID: id,
		OwnerWorkerID: prev.owner.id}
}

// claimWorkerNameLocked takes the (ns, name) lease for c, or returns the
// live connection that holds it. One live worker name per namespace; a
// holder whose cleanup has started has let go.
func (s *Engine) claimWorkerNameLocked(c *conn, ns, name string) (owner *conn) {
	key := namespacedName{ns, name}
	if prev := s.workerNames[key]; prev != nil && prev != c && !prev.dead {
		return prev
	}
	s.workerNames[key] = c
	return nil
}

// releaseWorkerNamesLocked drops the leases c holds (disconnect cleanup).
func (s *Engine) releaseWorkerNamesLocked(c *conn) {
	for key, owner := range s.workerNames {
		if owner == c {
			delete(s.workerNames, key)
		}
	}
}

// rejectWorkerLocked refuses c's worker name, as the engine's
// reject_worker_registration does: c gets registrationrejected, then a
// close frame, and its held registrations are never applied.
func (s *Engine) rejectWorkerLocked(c *conn, ns, name string, owner *conn) {
	if c.nsState == nsPending || c.nsState == nsDraining {
		c.nsState = nsRejected
		c.held = nil
	}
	c.decideLocked()
	c.send(wire.RegistrationRejected{Code: wire.CodeWorkerNamespaceConflict, Namespace: ns, WorkerName: name,
		OwnerWorkerID: owner.id})
	c.out.closeAfter()
	c.log.Warn("worker name already held by a live worker in this namespace; registration rejected",
		zap.String("namespace", ns), zap.String("worker_name", name), zap.String("owner", owner.id))
}
