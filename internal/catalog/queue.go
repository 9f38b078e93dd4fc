package catalog

import (
	"context"
	"sync"
)

// keyQueue holds the keys waiting to be read again, in arrival order, each
// at most once: a burst of writes to one key costs one read. It never
// blocks a push.
type keyQueue struct {
	mu      sync.Mutex
	order   []stateEvent
	pending map[stateEvent]struct{}
	signal  chan struct{} // capacity 1: "the queue may be non-empty"
}

func newKeyQueue() *keyQueue {
	return &keyQueue{pending: map[stateEvent]struct{}{}, signal: make(chan struct{}, 1)}
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

// pop waits for the next key; ok is false once ctx ends.
func (q *keyQueue) pop(ctx context.Context) (stateEvent, bool) {
	for {
		q.mu.Lock()
		if len(q.order) > 0 {
			ev := q.order[0]
			q.order = q.order[1:]
			delete(q.pending, ev)
			q.mu.Unlock()
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
