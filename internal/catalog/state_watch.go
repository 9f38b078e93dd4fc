package catalog

import (
	"context"
	"encoding/json"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// Waiting for the state trigger type (docs/data-path.md#the-catalog). An
// engine whose state worker registers after this worker (iii 0.24 runs
// state as a worker of its own) has no state trigger type when the
// catalog first asks. Rather than serve read-through until the next
// connection, the catalog asks again while it waits: at once whenever the
// engine reports a change of its workers or functions (an internal
// function bound to engine::workers-available and
// engine::functions-available, only while waiting), and on a backoff
// from watchMinDelay to watchMaxDelay in case no event comes. As soon as
// the type is there it drops the bindings, goes live and loads every
// scope, on the same connection.

// The poll's bounds. An event resets the delay to watchMinDelay: a state
// worker's connection is announced before its registrations arrive.
const (
	watchMinDelay = 250 * time.Millisecond
	watchMaxDelay = 5 * time.Second
)

// The engine's trigger types that announce a change of its workers or
// functions.
const (
	workersAvailableType   = "engine::workers-available"
	functionsAvailableType = "engine::functions-available"
)

// stateWatch is the wait for the state trigger type on one connection.
// It belongs to followConnections: nothing else touches it.
type stateWatch struct {
	c       *Catalog
	waiting bool // the current connection lacks the type, and may get it
	bound   bool // the function and bindings are registered on the client
	delay   time.Duration
	timer   *time.Timer
}

// watchFunctionID receives the engine's change events while the catalog
// waits; watchTriggerIDs are its bindings.
func (c *Catalog) watchFunctionID() string { return "skills::catalog::engine-" + c.suffix }

func (c *Catalog) watchTriggerIDs() []string {
	return []string{"skills-catalog-" + c.suffix + "-workers", "skills-catalog-" + c.suffix + "-functions"}
}

// onEngineEvent wakes the wait for the state trigger type. It never
// blocks the engine's delivery: one pending wake-up is enough.
func (c *Catalog) onEngineEvent(context.Context, iii.Request) (any, error) {
	select {
	case c.engineEvent <- struct{}{}:
	default:
	}
	return nil, nil
}

// start begins waiting on the current connection: the bindings are made
// (once; the client replays them on later connections until stop) and
// the first poll is armed.
func (w *stateWatch) start() {
	w.waiting = true
	if !w.bound {
		c := w.c
		c.engine.RegisterFunction(iii.Function{
			ID:          c.watchFunctionID(),
			Description: "Internal: wakes this skills worker's catalog when the engine's workers or functions change, while it waits for the state trigger type.",
			Metadata:    json.RawMessage(`{"internal":true}`),
			Handler:     c.onEngineEvent,
		})
		ids := c.watchTriggerIDs()
		for i, typ := range []string{workersAvailableType, functionsAvailableType} {
			c.engine.RegisterTrigger(iii.Trigger{ID: ids[i], Type: typ, FunctionID: c.watchFunctionID()})
		}
		w.bound = true
	}
	w.rearm(watchMinDelay)
}

// stop ends the wait and drops the bindings, so an engine that has the
// type sends this worker none of its change events.
func (w *stateWatch) stop() {
	w.waiting = false
	w.stopTimer()
	if w.bound {
		c := w.c
		for _, id := range c.watchTriggerIDs() {
			c.engine.UnregisterTrigger(id)
		}
		c.engine.UnregisterFunction(c.watchFunctionID())
		w.bound = false
	}
}

// due is the poll's channel: nil while not waiting.
func (w *stateWatch) due() <-chan time.Time {
	if !w.waiting || w.timer == nil {
		return nil
	}
	return w.timer.C
}

// again arms the next poll: soon after an event, else later each time.
func (w *stateWatch) again(afterEvent bool) {
	if afterEvent {
		w.rearm(watchMinDelay)
		return
	}
	w.rearm(min(2*w.delay, watchMaxDelay))
}

func (w *stateWatch) rearm(d time.Duration) {
	w.stopTimer()
	w.delay = d
	w.timer = time.NewTimer(d)
}

func (w *stateWatch) stopTimer() {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
}
