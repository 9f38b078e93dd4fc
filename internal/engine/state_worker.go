package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Which state workers the engine carries (docs/decisions.md D55). By
// default it is 0.22.1's, in-process from the start, in the default
// namespace. iii 0.24 runs state as a separate worker, which may register
// after other workers: Options.StateWorkerLate starts the engine without
// it, and StartState registers it, as its connection would.
// Options.StateListEntries adds 0.24's paged listing, state::list_entries
// (state_entries.go). With Options.Namespaces, StartStateIn gives another
// namespace a state worker of its own, with its own store, as iii 0.23+
// runs one per namespace.

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

// stateSpecsLocked lists a state worker's functions as the engine's
// options shape them: with state::list_entries when it offers it.
func (r *registry) stateSpecsLocked() []builtinSpec {
	specs := stateBuiltins()
	if r.stateListEntries {
		specs = append(specs, stateListEntriesSpec)
	}
	return specs
}

// stateTypeIn is the state worker's trigger type as it serves namespace
// ns.
func stateTypeIn(ns string) *triggerType {
	return &triggerType{namespace: ns, id: triggerState, description: triggerStateDescription, worker: stateWorkerName}
}

// stateTriggerOfferedLocked reports whether the engine has the default
// namespace's state trigger type.
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

// stateStoreIn is the store of namespace ns's state worker: the default
// namespace's is Engine.state, there from the start (even before a late
// worker registers); another namespace has one once StartStateIn gave it
// a state worker, and nil before. The in-process state functions are
// installed only where there is a store.
func (s *Engine) stateStoreIn(ns string) *stateStore {
	if ns == DefaultNamespace {
		return s.state
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateStores[ns]
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
// other engine, or a second time, it does nothing. It is
// StartStateIn(DefaultNamespace).
func (s *Engine) StartState() {
	_ = s.StartStateIn(DefaultNamespace) // cannot fail for the default namespace
}

// StartStateIn registers a state worker in namespace ns, as iii 0.23+
// runs one per namespace (a Compose project's own state container): the
// state::* functions (state::list_entries with Options.StateListEntries)
// in ns, on a store of the namespace's own, and the state trigger type in
// ns, registered as StartState registers the default one, so parked
// bindings that resolve to it are offered it and the bindings of ns that
// fell back to the default namespace's state type are claimed back. A
// write in ns fires only the bindings bound to ns's state trigger type,
// each calling its function in the binding's namespace.
// engine::workers-available fires worker_connected for "iii-state".
//
// For the default namespace it is StartState. Another namespace needs
// Options.Namespaces, and a namespace that is not blank; either mistake is
// an error and changes nothing. Once a namespace has its state worker,
// another call for it does nothing, and a Restart keeps it. Only the
// default namespace's store is kept in the state log (Options.DataDir):
// the others live in memory (docs/engine.md).
func (s *Engine) StartStateIn(ns string) error {
	if ns != DefaultNamespace {
		if strings.TrimSpace(ns) == "" {
			return fmt.Errorf("engine: start a state worker in namespace %q: the namespace is blank; name one, or use %q for the default namespace's", ns, DefaultNamespace)
		}
		if !s.namespaces {
			return fmt.Errorf("engine: start a state worker in namespace %q: namespaces other than %q need Options.Namespaces (engine 0.23 rules); this engine follows 0.22.1, which has only %q", ns, DefaultNamespace, DefaultNamespace)
		}
	}
	s.mu.Lock()
	switch {
	case ns == DefaultNamespace && !s.stateAbsent, ns != DefaultNamespace && s.stateStores[ns] != nil:
		s.mu.Unlock()
		return nil
	case ns == DefaultNamespace:
		s.stateAbsent = false
	default:
		s.stateStores[ns] = newStateStore()
	}
	for _, b := range s.stateSpecsLocked() {
		s.putFunctionLocked(&function{namespace: ns, id: b.id, description: b.description, run: b.run,
			elements: builtinElements[b.id], workerName: b.worker})
	}
	if !s.withoutStateTrigger { // the default worker is no longer absent
		s.addTriggerTypeLocked(stateTypeIn(ns), s.log)
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.log.Info("state worker registered", zap.String("worker", stateWorkerName), zap.String("namespace", ns))
	s.fire(triggerWorkersAvailable, map[string]any{"event": "worker_connected", "worker_id": stateWorkerName})
	return nil
}

// stateNamespacesLocked lists the namespaces other than the default one
// that have a state worker, sorted.
func (r *registry) stateNamespacesLocked() []string {
	return slices.Sorted(maps.Keys(r.stateStores))
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
