package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.uber.org/zap"
)

// The introspection below names a namespace where the engine keys by one
// (Options.Namespaces): Function, Functions, TriggerTypes, Bindings and
// the waits look in the default namespace, which is all a 0.22.1 engine
// has, and their ...In variants in the namespace given. The Namespace
// fields of what they return are "" for a 0.22.1 engine.

// Function is a registered function as the engine sees it.
type Function struct {
	ID          string
	Description string
	// RequestFormat, ResponseFormat and Metadata are as registered, in the
	// engine's canonical JSON (sorted keys); nil when not given.
	RequestFormat  json.RawMessage
	ResponseFormat json.RawMessage
	Metadata       json.RawMessage
	// WorkerID is the owning connection; "" for in-process functions.
	WorkerID string
	// Namespace is the namespace it is registered in (Options.Namespaces).
	Namespace string
}

// TriggerType is a registered trigger type.
type TriggerType struct {
	ID          string
	Description string
	// TriggerRequestFormat and CallRequestFormat are the schemas the
	// provider registered; nil when not given.
	TriggerRequestFormat json.RawMessage
	CallRequestFormat    json.RawMessage
	// ProviderID is the providing connection; "" for the engine's own
	// types (engine::functions-available, engine::workers-available).
	ProviderID string
	// Namespace is the namespace it serves (Options.Namespaces).
	Namespace string
}

// Binding is a registered trigger (a function bound to a trigger type).
type Binding struct {
	ID          string
	TriggerType string
	FunctionID  string
	// Config and Metadata are as registered (Metadata nil when not given).
	Config   json.RawMessage
	Metadata json.RawMessage
	// WorkerID is the connection that registered it last.
	WorkerID string
	// Parked is true while the binding waits for its trigger type's
	// provider (unknown type, provider gone, or provider rejected it).
	Parked bool
	// Namespace is where FunctionID resolves when the binding fires;
	// TriggerNamespace the provider's namespace as the frame named it
	// ("" when it named none: the registering worker's namespace, then
	// the default one); ProviderNamespace, for a live binding, the
	// namespace of the provider it is bound to (Options.Namespaces).
	Namespace, TriggerNamespace, ProviderNamespace string
}

// Worker is one connected worker.
type Worker struct {
	ID string
	// Name, Description, Runtime, Version, OS, Isolation and PID are what
	// the worker reported through engine::workers::register; "" or 0 when
	// not reported.
	Name, Description, Runtime, Version, OS, Isolation string
	PID                                                uint32
	// RemoteIP is the connection's peer address without the port.
	RemoteIP string
	// ConnectedAt is when the WebSocket was accepted.
	ConnectedAt time.Time
	// Functions are the ids it registered (sorted), including ids another
	// worker has since taken over.
	Functions []string
	// Namespace is the connection's namespace (Options.Namespaces): the
	// default one until its engine::workers::register call fixed it.
	Namespace string
}

// shown is how a namespace appears in introspection: "" for a 0.22.1
// engine, which has none.
func (s *Engine) shown(ns string) string {
	if !s.namespaces {
		return ""
	}
	return ns
}

// Functions lists every function registered in the default namespace,
// in-process ones included, sorted by id.
func (s *Engine) Functions() []Function {
	return s.FunctionsIn(DefaultNamespace)
}

// FunctionsIn lists every function registered in namespace ns, sorted by
// id.
func (s *Engine) FunctionsIn(ns string) []Function {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Function
	for _, e := range nsAll(s.functions, s.nsFunctions) {
		if e.namespace == ns {
			out = append(out, s.exportFunctionLocked(e.v))
		}
	}
	return out
}

// Function returns one function registered in the default namespace.
func (s *Engine) Function(id string) (Function, bool) {
	return s.FunctionIn(DefaultNamespace, id)
}

// FunctionIn returns one function registered in namespace ns.
func (s *Engine) FunctionIn(ns, id string) (Function, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.functionLocked(ns, id)
	if f == nil {
		return Function{}, false
	}
	return s.exportFunctionLocked(f), true
}

func (s *Engine) exportFunctionLocked(f *function) Function {
	out := Function{ID: f.id, Description: f.description, RequestFormat: f.requestFormat,
		ResponseFormat: f.responseFormat, Metadata: f.metadata, Namespace: s.shown(f.ns())}
	if f.owner != nil {
		out.WorkerID = f.owner.id
	}
	return out
}

// TriggerTypes lists the trigger types of the default namespace sorted by
// id.
func (s *Engine) TriggerTypes() []TriggerType {
	return s.TriggerTypesIn(DefaultNamespace)
}

// TriggerTypesIn lists the trigger types of namespace ns sorted by id.
func (s *Engine) TriggerTypesIn(ns string) []TriggerType {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []TriggerType
	for _, e := range nsAll(s.types, s.nsTypes) {
		if e.namespace != ns {
			continue
		}
		t := e.v
		tt := TriggerType{ID: t.id, Description: t.description,
			TriggerRequestFormat: t.requestFormat, CallRequestFormat: t.callFormat, Namespace: s.shown(t.ns())}
		if t.provider != nil {
			tt.ProviderID = t.provider.id
		}
		out = append(out, tt)
	}
	return out
}

// Bindings lists the live and parked bindings whose function resolves in
// the default namespace, sorted by id (a live binding first when an id is
// both live and parked).
func (s *Engine) Bindings() []Binding {
	return s.BindingsIn(DefaultNamespace)
}

// BindingsIn is Bindings for the bindings whose function resolves in
// namespace ns (Binding.Namespace); trigger ids are global, so an id
// appears in one namespace only.
func (s *Engine) BindingsIn(ns string) []Binding {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Binding
	add := func(b *binding, parked bool) {
		if b.target() != ns {
			return
		}
		bb := Binding{ID: b.id, TriggerType: b.triggerType, FunctionID: b.functionID,
			Config: b.config, Metadata: b.metadata, Parked: parked,
			Namespace: s.shown(b.target()), TriggerNamespace: b.triggerNamespace}
		if !parked {
			bb.ProviderNamespace = s.shown(b.provNS())
		}
		if b.owner != nil {
			bb.WorkerID = b.owner.id
		}
		out = append(out, bb)
	}
	for _, b := range s.bindings {
		add(b, false)
	}
	for _, b := range s.parked {
		add(b, true)
	}
	slices.SortFunc(out, func(x, y Binding) int {
		if c := cmp.Compare(x.ID, y.ID); c != 0 {
			return c
		}
		if x.Parked == y.Parked {
			return 0
		}
		if y.Parked {
			return -1
		}
		return 1
	})
	return out
}

// Workers lists connected workers, of every namespace, in connection
// order.
func (s *Engine) Workers() []Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	conns := slices.SortedFunc(maps.Values(s.workers), func(x, y *conn) int { return cmp.Compare(x.seq, y.seq) })
	out := make([]Worker, 0, len(conns))
	for _, c := range conns {
		w := Worker{ID: c.id, Name: derefOr(c.meta.name), Description: derefOr(c.meta.description),
			Runtime: derefOr(c.meta.runtime), Version: derefOr(c.meta.version), OS: derefOr(c.meta.os),
			Isolation: derefOr(c.meta.isolation), RemoteIP: c.ip, ConnectedAt: c.connectedAt,
			Functions: slices.Sorted(maps.Keys(c.functionIDs)), Namespace: s.shown(c.ns())}
		if c.meta.pid != nil {
			w.PID = *c.meta.pid
		}
		out = append(out, w)
	}
	return out
}

// WaitFunction returns once a function with that id is registered in the
// default namespace, by any worker (or in-process), or when ctx is done.
func (s *Engine) WaitFunction(ctx context.Context, id string) error {
	return s.WaitFunctionIn(ctx, DefaultNamespace, id)
}

// WaitFunctionIn is WaitFunction in namespace ns.
func (s *Engine) WaitFunctionIn(ctx context.Context, ns, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("function %q in namespace %q", id, ns),
		func() bool { return s.functionLocked(ns, id) != nil })
}

// WaitFunctionGone returns once no function with that id is registered in
// the default namespace (its worker unregistered it or disconnected), or
// when ctx is done.
func (s *Engine) WaitFunctionGone(ctx context.Context, id string) error {
	return s.WaitFunctionGoneIn(ctx, DefaultNamespace, id)
}

// WaitFunctionGoneIn is WaitFunctionGone in namespace ns.
func (s *Engine) WaitFunctionGoneIn(ctx context.Context, ns, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("function %q in namespace %q to be gone", id, ns),
		func() bool { return s.functionLocked(ns, id) == nil })
}

// WaitTriggerType returns once a trigger type with that id is registered
// in the default namespace.
func (s *Engine) WaitTriggerType(ctx context.Context, id string) error {
	return s.WaitTriggerTypeIn(ctx, DefaultNamespace, id)
}

// WaitTriggerTypeIn is WaitTriggerType in namespace ns.
func (s *Engine) WaitTriggerTypeIn(ctx context.Context, ns, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("trigger type %q in namespace %q", id, ns),
		func() bool { return s.typeLocked(ns, id) != nil })
}

// WaitBinding returns once a binding with that id is live (forwarded to or
// accepted by its trigger type's provider). Trigger ids are global.
func (s *Engine) WaitBinding(ctx context.Context, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("live trigger %q", id), func() bool { return s.bindings[id] != nil })
}

// WaitBindingIn returns once the binding with that id is live and bound
// to the provider of its type in namespace providerNS: where it resolved,
// fell back, or was claimed back to.
func (s *Engine) WaitBindingIn(ctx context.Context, providerNS, id string) error {
	return s.waitFor(ctx, fmt.Sprintf("live trigger %q at the provider in namespace %q", id, providerNS),
		func() bool { b := s.bindings[id]; return b != nil && b.provNS() == providerNS })
}

// WaitWorker returns once a connected worker of the default namespace has
// reported that name through engine::workers::register.
func (s *Engine) WaitWorker(ctx context.Context, name string) error {
	return s.WaitWorkerIn(ctx, DefaultNamespace, name)
}

// WaitWorkerIn is WaitWorker for a worker of namespace ns.
func (s *Engine) WaitWorkerIn(ctx context.Context, ns, name string) error {
	return s.waitFor(ctx, fmt.Sprintf("worker %q in namespace %q", name, ns), func() bool {
		for _, c := range s.workers {
			if c.meta.name != nil && *c.meta.name == name && c.ns() == ns {
				return true
			}
		}
		return false
	})
}

// State returns a stored state value of the default namespace's store;
// false when the key is missing, or when Redis (Options.StateURL) cannot
// be read, which is logged.
func (s *Engine) State(scope, key string) (json.RawMessage, bool) {
	return s.StateIn(DefaultNamespace, scope, key)
}

// StateIn is State in the store of namespace ns's state worker
// (StartStateIn); false as well when ns has none.
func (s *Engine) StateIn(ns, scope, key string) (json.RawMessage, bool) {
	st := s.stateStoreIn(ns)
	if st == nil {
		return nil, false
	}
	v, ok, err := st.lookup(scope, key)
	if err != nil {
		s.log.Warn("state read for a test failed", zap.Error(err))
	}
	return v, ok
}

// StateValues lists a scope's values in the default namespace's store in
// first-write order (in Redis, the hash's order), as state::list does;
// empty when Redis (Options.StateURL) cannot be read, which is logged.
func (s *Engine) StateValues(scope string) []json.RawMessage {
	return s.StateValuesIn(DefaultNamespace, scope)
}

// StateValuesIn is StateValues in the store of namespace ns's state
// worker; empty when ns has none.
func (s *Engine) StateValuesIn(ns, scope string) []json.RawMessage {
	st := s.stateStoreIn(ns)
	if st == nil {
		return []json.RawMessage{}
	}
	values, err := st.list(scope)
	if err != nil {
		s.log.Warn("state read for a test failed", zap.Error(err))
		return []json.RawMessage{}
	}
	return values
}

// SetState writes a state value in the default namespace's store (for
// example a row another worker wrote) without going through a socket.
// Like state::set, it fires the state trigger.
func (s *Engine) SetState(scope, key string, value json.RawMessage) error {
	return s.SetStateIn(DefaultNamespace, scope, key, value)
}

// SetStateIn is SetState in the store of namespace ns's state worker, and
// fires ns's state trigger. A namespace other than the default one must
// have its state worker (StartStateIn) first.
func (s *Engine) SetStateIn(ns, scope, key string, value json.RawMessage) error {
	st, err := s.stateStoreFor(ns, "set state", scope, key)
	if err != nil {
		return err
	}
	v, err := decodeValue(value)
	if err != nil {
		return fmt.Errorf("engine: set state %s/%s: %w", scope, key, err)
	}
	if _, err := s.writeStateIn(ns, st, scope, key, mustEncode(v)); err != nil {
		return fmt.Errorf("engine: set state %s/%s: %w", scope, key, err)
	}
	return nil
}

// DeleteState deletes a state value of the default namespace's store
// without going through a socket. Like state::delete, it fires the state
// trigger, even for a missing key. A delete the state log cannot persist
// (Options.DataDir), or Redis does not answer (Options.StateURL), changes
// nothing; the engine logs it.
func (s *Engine) DeleteState(scope, key string) {
	if err := s.DeleteStateIn(DefaultNamespace, scope, key); err != nil { // the default store is always there
		s.log.Warn("a state delete was refused", zap.Error(err))
	}
}

// DeleteStateIn is DeleteState in the store of namespace ns's state
// worker, and fires ns's state trigger. A namespace other than the
// default one must have its state worker (StartStateIn) first.
func (s *Engine) DeleteStateIn(ns, scope, key string) error {
	st, err := s.stateStoreFor(ns, "delete state", scope, key)
	if err != nil {
		return err
	}
	if _, err := s.deleteStateIn(ns, st, scope, key); err != nil {
		return fmt.Errorf("engine: delete state %s/%s: %w", scope, key, err)
	}
	return nil
}

// stateStoreFor is ns's store, or, when ns has no state worker, an error
// for what (done to scope/key) that says how to give it one.
func (s *Engine) stateStoreFor(ns, what, scope, key string) (*stateStore, error) {
	if st := s.stateStoreIn(ns); st != nil {
		return st, nil
	}
	return nil, fmt.Errorf("engine: %s %s/%s in namespace %q: the namespace has no state worker; start one with StartStateIn(%q) first",
		what, scope, key, ns, ns)
}

// WaitConfiguration returns once the configuration worker
// (Options.Configuration) holds an entry with that id, or when ctx is
// done; without the option it waits for ctx.
func (s *Engine) WaitConfiguration(ctx context.Context, id string) error {
	c := s.configs
	if c == nil {
		<-ctx.Done()
		return fmt.Errorf("engine: waiting for configuration %q: the engine has no configuration worker (Options.Configuration): %w", id, ctx.Err())
	}
	for {
		c.mu.Lock()
		found, changed := c.entries[id] != nil, c.changed
		c.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("engine: waiting for configuration %q: %w", id, ctx.Err())
		}
	}
}
