package engine

import "sync"

// One queue per state binding, with Options.StateWindow
// (docs/engine.md#the-state-trigger, docs/decisions.md D72). The writes'
// events are taken in write order by one goroutine, as without it, and
// handed to a queue per matching binding,
// each delivered by a goroutine of its own that runs while the queue has
// events, so no binding waits for another; within a binding at most
// Options.StateWindow calls are in flight, sent in write order. One
// queue for every binding, each call awaited, made the engine announce
// writes at one round trip per binding per write: two replicas of a
// worker under ~2,000 registrations a second fell 8.6 s behind (3.7 s
// with a queue per binding, 0.09 s with a window of 64; BENCHMARKS.md).
// iii calls a write's bindings from a task of its own per write, one
// after the other, and any number of writes' tasks at once.

// bindingQueue is the events waiting for one binding.
type bindingQueue struct {
	items    []bindingEvent
	running  bool          // a goroutine is delivering them
	window   chan struct{} // a slot per call in flight, when the window is over 1
	inFlight int           // calls sent and not yet ended, with a window
}

// bindingEvent is one event for one binding.
type bindingEvent struct {
	condition *string
	payload   []byte
}

// bindingQueues is every binding's queue; a queue exists while it has
// events, a goroutine delivering them, or calls in flight (its window
// bounds a binding's calls only while it is the binding's one queue).
type bindingQueues struct {
	mu     sync.Mutex
	queues map[*binding]*bindingQueue
}

// enqueueState hands b an event; it starts b's delivery goroutine if it
// is not running. Called from the engine's delivery goroutine, which
// holds s.bg, so adding to it never races its Wait.
func (s *Engine) enqueueState(b *binding, condition *string, payload []byte) {
	qs := &s.bindingQueues
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if qs.queues == nil {
		qs.queues = map[*binding]*bindingQueue{}
	}
	q := qs.queues[b]
	if q == nil {
		q = &bindingQueue{}
		if s.opts.StateWindow > 1 { // 1: each call awaited, as without a window
			q.window = make(chan struct{}, s.opts.StateWindow)
		}
		qs.queues[b] = q
	}
	q.items = append(q.items, bindingEvent{condition: condition, payload: payload})
	if !q.running {
		q.running = true
		s.bg.Add(1)
		go s.deliverBinding(b, q)
	}
}

// deliverBinding delivers b's queued events in order, until the queue is
// empty or the engine closes: each call awaited, or with a window, each
// from a goroutine of its own that holds a slot of the window.
func (s *Engine) deliverBinding(b *binding, q *bindingQueue) {
	defer s.bg.Done()
	qs := &s.bindingQueues
	for {
		qs.mu.Lock()
		if len(q.items) == 0 {
			q.running = false
			qs.dropIdle(b, q)
			qs.mu.Unlock()
			return
		}
		ev := q.items[0]
		q.items[0] = bindingEvent{}
		q.items = q.items[1:]
		qs.mu.Unlock()
		select {
		case <-s.quit:
			return
		default:
		}
		if q.window == nil {
			if !s.fireBinding(b, ev.condition, ev.payload) {
				return
			}
			continue
		}
		select {
		case q.window <- struct{}{}:
		case <-s.quit:
			return
		}
		qs.mu.Lock()
		q.inFlight++
		qs.mu.Unlock()
		s.bg.Add(1) // this goroutine holds s.bg, so Add never races Wait
		go func() {
			defer s.bg.Done()
			s.fireBinding(b, ev.condition, ev.payload)
			<-q.window
			qs.mu.Lock()
			q.inFlight--
			qs.dropIdle(b, q)
			qs.mu.Unlock()
		}()
	}
}

// dropIdle forgets b's queue q once nothing is queued, delivering or in
// flight. Before, a queue emptied while its calls were still in flight
// was dropped, and the next event made a new queue with a window of its
// own, so a binding could have more calls in flight than the window.
// Called with qs.mu held.
func (qs *bindingQueues) dropIdle(b *binding, q *bindingQueue) {
	if len(q.items) == 0 && !q.running && q.inFlight == 0 && qs.queues[b] == q {
		delete(qs.queues, b)
	}
}
