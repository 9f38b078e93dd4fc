package engine

import "sync"

// eventQueue holds the events an in-process worker's trigger type (state,
// configuration) has to deliver, so that a write never waits for its
// subscribers: push queues an event, and one goroutine the engine owns
// (run) delivers them one at a time, in the order they were pushed.
type eventQueue[T any] struct {
	mu     sync.Mutex
	queue  []T
	signal chan struct{} // capacity 1: "the queue is not empty"
}

func newEventQueue[T any]() *eventQueue[T] {
	return &eventQueue[T]{signal: make(chan struct{}, 1)}
}

// push queues ev; it never blocks.
func (q *eventQueue[T]) push(ev T) {
	q.mu.Lock()
	q.queue = append(q.queue, ev)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// run delivers the queued events with deliver until quit is closed or
// deliver reports false (the engine is closing).
func (q *eventQueue[T]) run(quit <-chan struct{}, deliver func(T) bool) {
	for {
		select {
		case <-quit:
			return
		case <-q.signal:
		}
		for {
			q.mu.Lock()
			if len(q.queue) == 0 {
				q.mu.Unlock()
				break
			}
			ev := q.queue[0]
			q.queue = q.queue[1:]
			q.mu.Unlock()
			if !deliver(ev) {
				return
			}
		}
	}
}
