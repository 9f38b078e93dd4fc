package catalog

import (
	"context"
	"sync"
)

// keyQueue holds the keys waiting to be read again, in arrival order, each
// at most once: a burst of writes to one key costs one read. It never
// blocks a push. Several readers pop at once (the catalog's rereaders),
// never two the same key: a key popped is busy until done, and a push of
// it meanwhile waits in the queue for done (two reads of one key in
// flight could apply the older answer last, docs/decisions.md D72).
type keyQueue struct {
	mu      sync.Mutex
	order   []stateEvent
	pending map[stateEvent]struct{}
	busy    map[stateEvent]struct{}
	signal  chan struct{} // capacity 1: "the queue may have a key to pop"
	// freed is closed (and dropped) when a read ends, for claim to look
	// again; nil while no claim waits.
	freed chan struct{}
}

func newKeyQueue() *keyQueue {
	return &keyQueue{pending: map[stateEvent]struct{}{}, busy: map[stateEvent]struct{}{}, signal: make(chan struct{}, 1)}
}

func (q *keyQueue) push(ev stateEvent) {
	q.mu.Lock()
	if _, ok := q.pending[ev]; !ok {
		q.pending[ev] = struct{}{}
		q.order = append(q.order, ev)
	}
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// pop waits for the next key that is not busy and makes it busy until
// done; ok is false once ctx ends.
func (q *keyQueue) pop(ctx context.Context) (stateEvent, bool) {
	for {
		q.mu.Lock()
		for i, ev := range q.order {
			if _, busy := q.busy[ev]; busy {
				continue // at most one per reader: the scan is short
			}
			if i == 0 {
				q.order = q.order[1:]
			} else {
				q.order = append(q.order[:i:i], q.order[i+1:]...)
			}
			delete(q.pending, ev)
			q.busy[ev] = struct{}{}
			more := len(q.order) > 0
			q.mu.Unlock()
			if more {
				q.wake() // another reader may take the next one
			}
			return ev, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return stateEvent{}, false
		case <-q.signal:
		}
	}
}

// claim waits until no read of ev is in flight and makes it busy until
// done, for a read made outside the queue's readers (a read after a
// version, read_after.go): never two reads of one key at once, whoever
// makes them. A push of ev that waits in the queue is left there. ok is
// false once ctx ends.
func (q *keyQueue) claim(ctx context.Context, ev stateEvent) bool {
	for {
		q.mu.Lock()
		if _, busy := q.busy[ev]; !busy {
			q.busy[ev] = struct{}{}
			q.mu.Unlock()
			return true
		}
		if q.freed == nil {
			q.freed = make(chan struct{})
		}
		freed := q.freed
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return false
		case <-freed:
		}
	}
}

// done ends ev's read: a push of it that came meanwhile may be popped.
func (q *keyQueue) done(ev stateEvent) {
	q.mu.Lock()
	delete(q.busy, ev)
	_, again := q.pending[ev]
	if q.freed != nil {
		close(q.freed)
		q.freed = nil
	}
	q.mu.Unlock()
	if again {
		q.wake()
	}
}

func (q *keyQueue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}
