package engine

import (
	"context"
	"fmt"
	"sync"
)

// registry is the engine's shared bookkeeping. One mutex guards all of it
// (and the per-connection fields documented on conn), so that a frame's
// effects and a disconnect cleanup are each atomic. Nothing that blocks is
// done while holding it: frames for other connections are queued on their
// outboxes, which never block.
type registry struct {
	mu          sync.Mutex
	workers     map[string]*conn        // live connections by worker id
	functions   map[string]*function    // by function id
	types       map[string]*triggerType // trigger types by id
	bindings    map[string]*binding     // live bindings by trigger id
	parked      map[string]*binding     // bindings waiting for their type
	invocations map[string]*invocation  // calls waiting for a worker's result
	changed     chan struct{}           // closed and replaced on every change
	connSeq     uint64                  // connection order, for listings

	withoutStateTrigger bool // Options.WithoutStateTrigger
	withConfiguration   bool // Options.Configuration
}

func (r *registry) init() {
	r.workers = map[string]*conn{}
	r.functions = map[string]*function{}
	r.types = map[string]*triggerType{}
	r.bindings = map[string]*binding{}
	r.parked = map[string]*binding{}
	r.invocations = map[string]*invocation{}
	r.changed = make(chan struct{})
	r.installBuiltinsLocked()
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
