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
	bg := &backgroundCall{fn: fn, done: make(chan struct{})}
	w.bg = bg
	go func() {
		defer close(bg.done)
		bg.result, bg.err = w.run.call(context.Background(), fn, raw)
	}()
	// Give the call time to reach the worker and its upstream function.
	time.Sleep(100 * time.Millisecond)
	return nil
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

// backgroundFinishes waits for the background call and makes its outcome
// the one later steps assert on.
func (w *world) backgroundFinishes() error {
	if w.bg == nil {
		return fmt.Errorf("no background call was started")
	}
	select {
	case <-w.bg.done:
	case <-time.After(callTimeout + time.Second):
		return fmt.Errorf("the background call to %s did not finish", w.bg.fn)
	}
	w.result, w.err = w.bg.result, w.bg.err
	return nil
}
