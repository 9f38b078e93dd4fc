package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// DefaultNamespace is the namespace of the engine's own functions and
// trigger types, of every registration a 0.22.1 engine takes, and, with
// Options.Namespaces, of every frame or connection that names none.
const DefaultNamespace = "default"

// registry is the engine's shared bookkeeping. One mutex guards all of it
// (and the per-connection fields documented on conn), so that a frame's
// effects and a disconnect cleanup are each atomic. Nothing that blocks is
// done while holding it: frames for other connections are queued on their
// outboxes, which never block.
//
// Functions and trigger types are keyed by (namespace, id). The default
// namespace, the only one of a 0.22.1 engine, has its tables by id
// (functions, types); the others, which only Options.Namespaces creates,
// are by namespace then id (nsFunctions, nsTypes). nsGet, nsPut and
// nsDelete address a pair as one table.
type registry struct {
	mu          sync.Mutex
	workers     map[string]*conn                   // live connections by worker id
	functions   map[string]*function               // the default namespace's, by function id
	nsFunctions map[string]map[string]*function    // other namespaces', by namespace then id
	types       map[string]*triggerType            // the default namespace's trigger types by id
	nsTypes     map[string]map[string]*triggerType // other namespaces', by namespace then id
	bindings    map[string]*binding                // live bindings by trigger id
	parked      map[string]*binding                // bindings waiting for their type
	invocations map[string]*invocation             // calls waiting for a worker's result
	workerNames map[namespacedName]*conn           // worker-name leases (Options.Namespaces)
	changed     chan struct{}                      // closed and replaced on every change
	connSeq     uint64                             // connection order, for listings

	withoutStateTrigger bool // Options.WithoutStateTrigger
	withConfiguration   bool // Options.Configuration
	withPubSub          bool // Options.PubSub (pubsub.go)
	namespaces          bool // Options.Namespaces
	stateListEntries    bool // Options.StateListEntries
	stateAbsent         bool // Options.StateWorkerLate, until StartState (state_worker.go)

	// stateStores are the stores of the state workers of namespaces other
	// than the default one (StartStateIn); the default one's is
	// Engine.state.
	stateStores map[string]*stateStore
}

// namespacedName is a (namespace, name) key.
type namespacedName struct{ namespace, name string }

func (r *registry) init() {
	r.workers = map[string]*conn{}
	r.functions = map[string]*function{}
	r.nsFunctions = map[string]map[string]*function{}
	r.types = map[string]*triggerType{}
	r.nsTypes = map[string]map[string]*triggerType{}
	r.bindings = map[string]*binding{}
	r.parked = map[string]*binding{}
	r.invocations = map[string]*invocation{}
	r.workerNames = map[namespacedName]*conn{}
	r.changed = make(chan struct{})
	r.stateStores = map[string]*stateStore{}
	r.installBuiltinsLocked()
}

// nsGet reads (ns, id) from a table kept as the registry keeps them.
func nsGet[T any](def map[string]T, others map[string]map[string]T, ns, id string) T {
	if ns == DefaultNamespace {
		return def[id]
	}
	return others[ns][id]
}

// nsPut writes (ns, id).
func nsPut[T any](def map[string]T, others map[string]map[string]T, ns, id string, v T) {
	if ns == DefaultNamespace {
		def[id] = v
		return
	}
	if others[ns] == nil {
		others[ns] = map[string]T{}
	}
	others[ns][id] = v
}

// nsDelete removes (ns, id), and a namespace left empty.
func nsDelete[T any](def map[string]T, others map[string]map[string]T, ns, id string) {
	if ns == DefaultNamespace {
		delete(def, id)
		return
	}
	delete(others[ns], id)
	if len(others[ns]) == 0 {
		delete(others, ns)
	}
}

// nsEntry is one entry of a namespaced table.
type nsEntry[T any] struct {
	namespace, id string
	v             T
}

// nsAll lists a table's entries sorted by id, then namespace.
func nsAll[T any](def map[string]T, others map[string]map[string]T) []nsEntry[T] {
	out := make([]nsEntry[T], 0, len(def))
	for id, v := range def {
		out = append(out, nsEntry[T]{DefaultNamespace, id, v})
	}
	for ns, tbl := range others {
		for id, v := range tbl {
			out = append(out, nsEntry[T]{ns, id, v})
		}
	}
	slices.SortFunc(out, func(x, y nsEntry[T]) int {
		return cmp.Or(cmp.Compare(x.id, y.id), cmp.Compare(x.namespace, y.namespace))
	})
	return out
}

// nsOf lists the namespaces that have id, sorted.
func nsOf[T any](def map[string]T, others map[string]map[string]T, id string) []string {
	var out []string
	if _, ok := def[id]; ok {
		out = append(out, DefaultNamespace)
	}
	for ns, tbl := range others {
		if _, ok := tbl[id]; ok {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out
}

func (r *registry) functionLocked(ns, id string) *function {
	return nsGet(r.functions, r.nsFunctions, ns, id)
}

func (r *registry) putFunctionLocked(f *function) {
	nsPut(r.functions, r.nsFunctions, f.ns(), f.id, f)
}

func (r *registry) deleteFunctionLocked(ns, id string) {
	nsDelete(r.functions, r.nsFunctions, ns, id)
}

func (r *registry) typeLocked(ns, id string) *triggerType {
	return nsGet(r.types, r.nsTypes, ns, id)
}

func (r *registry) putTypeLocked(t *triggerType) {
	nsPut(r.types, r.nsTypes, t.ns(), t.id, t)
}

func (r *registry) deleteTypeLocked(ns, id string) {
	nsDelete(r.types, r.nsTypes, ns, id)
}

// notifyLocked wakes every waiter; call it after a change others may wait
// for.
func (r *registry) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// waitFor blocks until cond, evaluated under the lock, holds.
func (r *registry) waitFor(ctx context.Context, what string, cond func() bool) error {
	for {
		r.mu.Lock()
		ok := cond()
		ch := r.changed
		r.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("engine: waiting for %s: %w", what, ctx.Err())
		}
	}
}
