package iii

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// holdCtx is a handler context holding bytes of b, as runHandler makes.
func holdCtx(b *byteBudget) (context.Context, *invocationHold) {
	h := &invocationHold{budget: b, wait: BytesInFlightWait}
	return context.WithValue(context.Background(), holdKey{}, h), h
}

// Past max_bytes_in_flight a handler waits, first come first served, for
// the bytes the answers before it give back; one that cannot get them
// within BytesInFlightWait gets unavailable naming the limit and its
// value (docs/decisions.md D64).
func TestBytesInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newByteBudget(100)
		ctxA, a := holdCtx(b)
		if err := HoldBytes(ctxA, 60); err != nil {
			t.Fatal(err)
		}
		// Admitted: what it learns later is taken without waiting, even
		// past the bound, so no answer waits while it holds bytes.
		if err := HoldBytes(ctxA, 50); err != nil || b.inUse() != 100 {
			t.Fatalf("a second hold of an admitted answer: %v, %d in use; want none, 100 (the whole budget at most)", err, b.inUse())
		}

		// B waits for 60, C for 10 behind it: when 50 come back C, which
		// would fit, does not pass B.
		a.release()
		ctxX, x := holdCtx(b)
		ctxA, a = holdCtx(b)
		if HoldBytes(ctxX, 50) != nil || HoldBytes(ctxA, 50) != nil {
			t.Fatal("the budget is free")
		}
		got := make(chan string, 2)
		ctxB, bh := holdCtx(b)
		ctxC, ch := holdCtx(b)
		go func() {
			if err := HoldBytes(ctxB, 60); err == nil {
				got <- "B"
			}
		}()
		synctest.Wait()
		go func() {
			if err := HoldBytes(ctxC, 10); err == nil {
				got <- "C"
			}
		}()
		synctest.Wait()
		a.release()
		synctest.Wait()
		if len(got) != 0 {
			t.Fatalf("%s got bytes ahead of the one before it", <-got)
		}
		x.release()
		synctest.Wait()
		if len(got) != 2 {
			t.Fatalf("%d of B and C got their bytes once the budget was free; want both", len(got))
		}
		a.release() // again: nothing more given back
		if b.inUse() != 70 {
			t.Errorf("%d bytes in use; want 70 (B's 60, C's 10)", b.inUse())
		}

		// D waits for more than is left, and gives up.
		ctxD, _ := holdCtx(b)
		start := time.Now()
		err := HoldBytes(ctxD, 40)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeUnavailable || !strings.Contains(e.Message, "max_bytes_in_flight, 100 bytes") ||
			time.Since(start) != BytesInFlightWait {
			t.Fatalf("past the bound for %v: %v; want unavailable naming max_bytes_in_flight and 100 after %v", time.Since(start), err, BytesInFlightWait)
		}
		if b.inUse() != 70 {
			t.Errorf("a hold that gave up left %d bytes in use; want 70", b.inUse())
		}

		// An answer bigger than the whole budget goes alone.
		bh.release()
		ch.release()
		<-b.drained // the burst that ended here
		ctxE, eh := holdCtx(b)
		if err := HoldBytes(ctxE, 1000); err != nil || b.inUse() != 100 {
			t.Errorf("an answer over the budget: %v, %d in use; want it to hold the whole budget", err, b.inUse())
		}
		// The burst is over: the budget says so once.
		eh.release()
		select {
		case <-b.drained:
		default:
			t.Errorf("the bytes were all given back after a burst, and nothing said so")
		}
	})
}

// A handler's context that ends while it waits ends the wait with the
// context's error.
func TestBytesInFlightWaitEndsWithTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newByteBudget(10)
		ctxA, _ := holdCtx(b)
		if err := HoldBytes(ctxA, 10); err != nil {
			t.Fatal(err)
		}
		ctxB, _ := holdCtx(b)
		ctxB, cancel := context.WithTimeout(ctxB, time.Second)
		defer cancel()
		if err := HoldBytes(ctxB, 5); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a wait whose call timed out: %v; want the deadline", err)
		}
		if HoldBytes(context.Background(), 1<<40) != nil {
			t.Errorf("outside a handler HoldBytes must do nothing")
		}
	})
}
