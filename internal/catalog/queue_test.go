package catalog

import (
	"context"
	"testing"
	"testing/synctest"
)

// The catalog's rereaders pop keys at once, never two the same key: a
// key pushed again while its read is in flight waits for done, and a
// burst of pushes of one key waiting in the queue is read once (D72).
// On a fake clock: synctest.Wait lets a pop that can take nothing block.
func TestKeyQueueNeverHandsOutOneKeyTwiceAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q := newKeyQueue()
		a, b := stateEvent{Scope: "s", Key: "a"}, stateEvent{Scope: "s", Key: "b"}
		q.push(a)
		if got, ok := q.pop(ctx); !ok || got != a {
			t.Fatalf("pop = %v %v, want a", got, ok)
		}
		q.push(a) // a changed again while its read is in flight
		q.push(a) // and again: one read will do
		q.push(b)
		if got, _ := q.pop(ctx); got != b {
			t.Fatalf("pop while a is busy = %v, want b (a waits for its read to end)", got)
		}
		popped := make(chan stateEvent, 2)
		reader := func() {
			if ev, ok := q.pop(ctx); ok {
				popped <- ev
			}
		}
		go reader()
		synctest.Wait()
		if len(popped) != 0 {
			t.Fatalf("popped %v while a's read is in flight", <-popped)
		}
		q.done(a)
		synctest.Wait()
		if len(popped) != 1 {
			t.Fatal("a was not handed out again after its read ended")
		}
		if ev := <-popped; ev != a {
			t.Fatalf("after done: %v, want a again", ev)
		}
		q.done(a)
		q.done(b)
		go reader()
		synctest.Wait()
		if len(popped) != 0 {
			t.Fatalf("popped %v, want nothing: the two pushes of a were read once", <-popped)
		}
		cancel()
	})
}
