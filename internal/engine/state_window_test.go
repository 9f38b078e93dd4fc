package engine

import (
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
)

// silentSubscriber is a connection without a socket that never answers,
// bound to the state trigger as id, whose queued frames a test reads.
func silentSubscriber(s *Engine, id string) *conn {
	c := &conn{srv: s, id: id, log: zap.NewNop(), out: outbox{ready: make(chan struct{}, 1)},
		functionIDs: map[string]struct{}{}, invocations: map[string]struct{}{}}
	s.mu.Lock()
	s.functions[id+"::on-state"] = &function{id: id + "::on-state", owner: c}
	s.bindings[id] = &binding{id: id, triggerType: triggerState, functionID: id + "::on-state"}
	s.mu.Unlock()
	return c
}

// deliveringToTwo is an engine delivering state events to two silent
// subscribers, bound in that order.
func deliveringToTwo(t *testing.T, opts Options) (s *Engine, first, second *conn) {
	s, _ = bareEngine(t, opts)
	first, second = silentSubscriber(s, "a-first"), silentSubscriber(s, "b-second")
	s.bg.Add(1)
	go s.deliverStateEvents()
	return s, first, second
}

// With a window (Options.StateWindow, what skills engine runs, D72) a
// binding has that many events in flight at once, and the next goes out
// when one of them ends; and no binding waits for another: a silent
// subscriber does not hold back a second one. On a fake clock.
func TestStateWindowOverlapsABindingsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, silent, other := deliveringToTwo(t, Options{StateWindow: 4})
		counts := map[*conn]int{}
		sent := func(c *conn) int {
			synctest.Wait()
			frames, _ := c.out.take()
			counts[c] += len(frames)
			return counts[c]
		}
		for i := range 6 {
			s.writeState("skills", fmt.Sprint(i), json.RawMessage(fmt.Sprintf(`{"id":"%d"}`, i)))
		}
		if n := sent(silent); n != 4 {
			t.Fatalf("%d calls sent at once to one binding, want the window's 4", n)
		}
		if n := sent(other); n != 4 {
			t.Fatalf("%d calls sent to the second binding, want 4: it does not wait for the first", n)
		}
		time.Sleep(triggerCallTimeout)
		if n := sent(silent); n != 6 {
			t.Fatalf("%d calls sent once the first four timed out, want 6", n)
		}
	})
}

// With a window of 1, a queue per binding, each call awaited: one that
// never answers holds its own events, not another binding's.
func TestStateBindingsDoNotWaitForEachOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, silent, other := deliveringToTwo(t, Options{StateWindow: 1})
		s.writeState("skills", "a", json.RawMessage(`{"id":"a"}`))
		s.writeState("skills", "b", json.RawMessage(`{"id":"b"}`))
		synctest.Wait()
		frames, _ := silent.out.take()
		if len(frames) != 1 {
			t.Fatalf("%d calls sent to the silent binding, want 1 (one at a time)", len(frames))
		}
		if frames, _ := other.out.take(); len(frames) != 1 {
			t.Fatalf("%d calls sent to the other binding while the first waits, want 1", len(frames))
		}
	})
}
