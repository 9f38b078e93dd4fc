package engine

import (
	"bytes"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// How the in-process workers' trigger types (state, configuration) call
// the functions bound to them: each event's bindings one at a time, each
// call awaited (its order is the engine's), a condition function first
// where the binding names one.

// triggerCallTimeout bounds the wait for one trigger call, as an SDK
// bounds a call by default.
const triggerCallTimeout = 30 * time.Second

// fireBinding calls b's function with payload, unless its condition
// function (when the binding names one) answers anything but true. It
// returns false when the engine is closing.
func (s *Engine) fireBinding(b *binding, condition *string, payload json.RawMessage) bool {
	if condition != nil {
		res, ok := s.callAndWait(b.target(), *condition, payload, nil)
		if !ok {
			return false
		}
		if !bytes.Equal(bytes.TrimSpace(res), []byte("true")) {
			return true
		}
	}
	_, ok := s.callAndWait(b.target(), b.functionID, payload, b.metadata)
	return ok
}

// callAndWait makes an engine-originated call in namespace ns and waits
// for its result (or its failure: a missing function, a callee that
// disconnects). ok is false only when the engine is closing.
func (s *Engine) callAndWait(ns, functionID string, data, metadata json.RawMessage) (result json.RawMessage, ok bool) {
	done := make(chan json.RawMessage, 1)
	s.call(callRequest{namespace: ns, functionID: functionID, data: data, metadata: metadata,
		done: func(res json.RawMessage, e *wire.ErrorBody) {
			if e != nil {
				s.log.Debug("trigger call failed", zap.String("function_id", functionID),
					zap.String("code", e.Code), zap.String("message", e.Message))
			}
			done <- res
		}})
	timer := time.NewTimer(triggerCallTimeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res, true
	case <-timer.C:
		// A subscriber that never answers must not stop every later
		// event; its late answer, if any, is discarded.
		s.log.Warn("trigger call did not answer in time; delivering the next event",
			zap.String("function_id", functionID), zap.Duration("timeout", triggerCallTimeout))
		return nil, true
	case <-s.quit:
		return nil, false
	}
}
