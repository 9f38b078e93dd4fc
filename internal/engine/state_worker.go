package engine

import (
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Which state worker the engine carries (docs/decisions.md D55). By
// default it is 0.22.1's, in-process from the start. iii 0.24 runs state
// as a separate worker, which may register after other workers:
// Options.StateWorkerLate starts the engine without it, and StartState
// registers it, as its connection would. Options.StateListEntries adds
// 0.24's paged listing, state::list_entries (state_entries.go).

// builtinsLocked is builtinTable as the engine's options shape it: without
// the state worker's functions while it has not registered, with
// state::list_entries when it offers it.
func (r *registry) builtinsLocked() []builtinSpec {
	table := builtinTable()
	out := make([]builtinSpec, 0, len(table)+1)
	for _, b := range table {
		if b.worker == stateWorkerName && r.stateAbsent {
			continue
		}
		out = append(out, b)
	}
	if r.stateListEntries && !r.stateAbsent {
		out = append(out, stateListEntriesSpec)
	}
	return out
}

// stateTriggerOfferedLocked reports whether the engine has the state
// trigger type.
func (r *registry) stateTriggerOfferedLocked() bool {
	return !r.withoutStateTrigger && !r.stateAbsent
}

// stateWorkerAbsent reports whether a late state worker has not
// registered yet.
func (s *Engine) stateWorkerAbsent() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateAbsent
}

// StartState registers the state worker of an engine started with
// Options.StateWorkerLate, as a 0.24 state worker connecting late would:
// its state::* functions appear (replacing any a worker registered under
// those ids; engine::functions-available fires at its next poll), then
// the state trigger type, which takes the parked bindings of it exactly
// as a worker provider's registration would (addTriggerTypeLocked; one
// whose config the type refuses stays parked and its owner is told), and
// engine::workers-available fires worker_connected for "iii-state". State
// written before (SetState) is there. Afterwards the engine is as if
// started without the option: a Restart keeps the state worker. On any
// other engine, or a second time, it does nothing.
func (s *Engine) StartState() {
	s.mu.Lock()
	if !s.stateAbsent {
		s.mu.Unlock()
		return
	}
	s.stateAbsent = false
	for _, b := range s.builtinsLocked() {
		if b.worker == stateWorkerName {
			s.putFunctionLocked(&function{namespace: DefaultNamespace, id: b.id, description: b.description, run: b.run,
				elements: builtinElements[b.id], workerName: b.worker})
		}
	}
	if s.stateTriggerOfferedLocked() {
		for _, t := range builtinTriggerTypes() {
			if t.id == triggerState {
				s.addTriggerTypeLocked(t, s.log)
			}
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.log.Info("state worker registered", zap.String("worker", stateWorkerName))
	s.fire(triggerWorkersAvailable, map[string]any{"event": "worker_connected", "worker_id": stateWorkerName})
}

// acceptInProcessLocked takes a parked binding for an in-process trigger
// type that registered late (StartState): a state binding whose config
// the type refuses stays parked, and its owner gets the refusal, as a
// worker provider's triggerregistrationresult would give it.
func (s *Engine) acceptInProcessLocked(tt *triggerType, b *binding) bool {
	if tt.id != triggerState {
		return true
	}
	e := checkStateBinding(b.registerFrame())
	if e == nil {
		return true
	}
	if b.owner != nil && !b.owner.dead {
		b.owner.send(wire.TriggerRegistrationResult{ID: b.id, TriggerType: b.triggerType, FunctionID: b.functionID, Error: e})
	}
	return false
}
