package engine

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
)

// A state subscriber that never answers holds each event's delivery for
// triggerCallTimeout (30 s), then the next event goes out: one silent
// worker cannot stop the state trigger for good. On a fake clock
// (testing/synctest); the subscriber is a connection without a socket,
// whose queued frames the test reads.
func TestSilentStateSubscriberHoldsEachEventForTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := bareEngine(t, Options{})
		silent := &conn{srv: s, id: "silent", log: zap.NewNop(), out: outbox{ready: make(chan struct{}, 1)},
			functionIDs: map[string]struct{}{}, invocations: map[string]struct{}{}}
		s.mu.Lock()
		s.functions["sub::on-state"] = &function{id: "sub::on-state", owner: silent}
		s.bindings["sub"] = &binding{id: "sub", triggerType: triggerState, functionID: "sub::on-state"}
		s.mu.Unlock()
		s.bg.Add(1)
		go s.deliverStateEvents()
		start := time.Now()
		// sent waits until the bubble settles and counts the calls the
		// subscriber was sent so far.
		calls := 0
		sent := func() int {
			synctest.Wait()
			frames, _ := silent.out.take()
			calls += len(frames)
			return calls
		}

		s.writeState("skills", "a", json.RawMessage(`{"id":"a"}`))
		s.writeState("skills", "b", json.RawMessage(`{"id":"b"}`))
		if n := sent(); n != 1 {
			t.Fatalf("%d calls sent at once, want 1 (the second event waits for the first)", n)
		}
		time.Sleep(triggerCallTimeout - time.Nanosecond)
		if n := sent(); n != 1 {
			t.Fatalf("%d calls sent before the timeout, want 1", n)
		}
		time.Sleep(time.Nanosecond)
		if n := sent(); n != 2 {
			t.Fatalf("%d calls sent at the timeout, want 2", n)
		}
		if got := time.Since(start); got != triggerCallTimeout {
			t.Errorf("the second event went out after %v, want %v", got, triggerCallTimeout)
		}
	})
}
