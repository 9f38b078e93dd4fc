package features

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cucumber/godog"
)

// backgroundCall is a call left running while the scenario goes on, to
// show that a slow or stuck call does not hold up others.
type backgroundCall struct {
	fn     string
	done   chan struct{}
	result json.RawMessage
	err    error
}

func (w *world) startBackground(fn string, doc *godog.DocString) error {
	if w.bg != nil {
		return fmt.Errorf("a background call is already running")
	}
	raw, err := w.payload(doc.Content)
	if err != nil {
		return err
	}
	if err := w.ensureWorker(); err != nil {
		return err
	}
	gate := w.run.slowGate()
	before, _ := gate.state()
	bg := &backgroundCall{fn: fn, done: make(chan struct{})}
	w.bg = bg
	go func() {
		defer close(bg.done)
		bg.result, bg.err = w.engineCall(context.Background(), fn, raw)
	}()
	// Every background call of the suite goes through bdd::slow, which
	// holds it until "the background call finishes": wait until it got
	// there, so the call is in flight at the worker and its upstream.
	deadline := time.NewTimer(callTimeout)
	defer deadline.Stop()
	for {
		n, changed := gate.state()
		if n > before {
			return nil
		}
		select {
		case <-changed:
		case <-bg.done:
			return fmt.Errorf("the background call to %s finished before reaching bdd::slow (result %s, error %v)", fn, bg.result, bg.err)
		case <-deadline.C:
			return fmt.Errorf("the background call to %s did not reach bdd::slow within %s", fn, callTimeout)
		}
	}
}

func (w *world) backgroundRunning() error {
	if w.bg == nil {
		return fmt.Errorf("no background call was started")
	}
	select {
	case <-w.bg.done:
		return fmt.Errorf("the background call to %s already finished (result %s, error %v)", w.bg.fn, w.bg.result, w.bg.err)
	default:
		return nil
	}
}

// backgroundFinishes lets bdd::slow answer, waits for the background
// call and makes its outcome the one later steps assert on.
func (w *world) backgroundFinishes() error {
	if w.bg == nil {
		return fmt.Errorf("no background call was started")
	}
	w.run.slowGate().open()
	select {
	case <-w.bg.done:
	case <-time.After(callTimeout + time.Second):
		return fmt.Errorf("the background call to %s did not finish", w.bg.fn)
	}
	w.result, w.err = w.bg.result, w.bg.err
	return nil
}
