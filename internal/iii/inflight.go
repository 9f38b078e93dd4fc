package iii

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// The bytes in flight (docs/decisions.md D64): the large responses being
// built and sent at once, whoever asked, are bounded in total. A handler
// about to build a large answer says how large with HoldBytes; the bytes
// stay held until its result frame has been written to the socket (or
// dropped with its connection), so a caller reading slowly holds its
// share until it has it. A handler past the bound waits, first come first
// served, at most BytesInFlightWait, then gets unavailable naming the
// limit.
//
// An invocation waits once, before it has built anything, for what it can
// foresee (a stored body's size, a batch's); what it learns later (a
// section's output, the rest of a document) is added without waiting. So
// no invocation waits while it holds bytes, and none can wait on another:
// the bound may be passed by what admitted invocations learn late, never
// by an invocation that has not started.

// After a burst (the bytes in flight reached half the bound), once they
// are all given back, the client returns the heap's free memory to the
// system at once (debug.FreeOSMemory, on a goroutine of its own). Without
// it an idle worker kept the peak resident: its next collection was
// minutes away (the runtime forces one every two minutes), and the
// scavenger returns pages slowly after that.

// BytesInFlightWait is the longest a handler waits for room under
// Options.MaxBytesInFlight before its call fails with unavailable.
const BytesInFlightWait = 20 * time.Second

// byteBudget is a weighted semaphore of bytes, first come first served:
// a large request is not passed over by the small ones behind it.
type byteBudget struct {
	max     int64
	mu      sync.Mutex
	used    int64
	peak    int64 // the most held since used was last 0
	waiting []*byteWaiter
	// drained is signalled when used falls to 0 after a burst.
	drained chan struct{}
}

type byteWaiter struct {
	n     int64
	ready chan struct{} // closed when the bytes are granted
}

func newByteBudget(max int64) *byteBudget {
	if max <= 0 {
		return nil
	}
	return &byteBudget{max: max, drained: make(chan struct{}, 1)}
}

// acquire takes n bytes (at most max), waiting until they are free or
// ctx ends.
func (b *byteBudget) acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if len(b.waiting) == 0 && b.used+n <= b.max {
		b.used += n
		b.peak = max(b.peak, b.used)
		b.mu.Unlock()
		return nil
	}
	w := &byteWaiter{n: n, ready: make(chan struct{})}
	b.waiting = append(b.waiting, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted as the wait ended: keep it
		return nil
	default:
	}
	b.waiting = slices.DeleteFunc(b.waiting, func(x *byteWaiter) bool { return x == w })
	b.grantLocked() // the head may have been what held the others back
	return ctx.Err()
}

// take takes n bytes at once, past the bound if need be.
func (b *byteBudget) take(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += n
	b.peak = max(b.peak, b.used)
}

// release gives n bytes back.
func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	b.grantLocked()
	if b.used == 0 {
		if 2*b.peak >= b.max {
			select {
			case b.drained <- struct{}{}:
			default:
			}
		}
		b.peak = 0
	}
}

func (b *byteBudget) grantLocked() {
	for len(b.waiting) > 0 && b.used+b.waiting[0].n <= b.max {
		w := b.waiting[0]
		b.waiting = b.waiting[1:]
		b.used += w.n
		b.peak = max(b.peak, b.used)
		close(w.ready)
	}
}

// inUse is how many bytes are held.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// invocationHold is what one invocation holds of the budget, given back
// once its reply has left.
type invocationHold struct {
	budget *byteBudget
	wait   time.Duration
	mu     sync.Mutex
	n      int64 // held; once some is, later holds do not wait
}

type holdKey struct{}

// HoldBytes holds n bytes of the client's bytes in flight
// (Options.MaxBytesInFlight) for the invocation whose handler ctx is,
// until its result has been written: a handler calls it before it builds
// a large answer. It waits, at most BytesInFlightWait or until ctx ends,
// while other answers hold the bytes, and then fails with unavailable,
// naming the limit. An invocation holds at most the whole budget, so one
// answer larger than it still goes, alone. Outside a handler, or without
// a bound, it does nothing.
func HoldBytes(ctx context.Context, n int) error {
	h, _ := ctx.Value(holdKey{}).(*invocationHold)
	if h == nil || n <= 0 {
		return nil
	}
	h.mu.Lock()
	want := min(int64(n), h.budget.max-h.n)
	switch {
	case want <= 0:
		h.mu.Unlock()
		return nil
	case h.n > 0:
		// Admitted already: take it without waiting (see above).
		h.n += want
		h.mu.Unlock()
		h.budget.take(want)
		return nil
	}
	h.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, h.wait)
	defer cancel()
	if err := h.budget.acquire(wctx, want); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Code: CodeUnavailable, Message: fmt.Sprintf(
			"this worker is already sending as many bytes of responses as its limit allows (max_bytes_in_flight, %d bytes); waited %s for room for %d more; try again shortly, or ask for less",
			h.budget.max, h.wait, want)}
	}
	h.mu.Lock()
	h.n += want
	h.mu.Unlock()
	return nil
}

// release gives back what the invocation holds; calling it again does
// nothing.
func (h *invocationHold) release() {
	if h == nil {
		return
	}
	h.mu.Lock()
	n := h.n
	h.n = 0
	h.mu.Unlock()
	if n > 0 {
		h.budget.release(n)
	}
}

// BytesInFlight is how many bytes the handlers hold now (HoldBytes).
func (c *Client) BytesInFlight() int64 {
	if c.bytes == nil {
		return 0
	}
	return c.bytes.inUse()
}

// memoryReturnGap is the least time between two returns of the heap's
// free memory: debug.FreeOSMemory is a full collection, and a worker
// under steady large traffic drains its bytes in flight many times a
// second. A burst that ends within the gap is returned at its end (the
// drained signal waits in its buffer).
const memoryReturnGap = 5 * time.Second

// returnMemory gives the heap's free memory back to the system after each
// burst of bytes in flight, at most once every memoryReturnGap, until the
// client closes.
func (c *Client) returnMemory() {
	defer c.memory.Done()
	gap := time.NewTimer(0)
	defer gap.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-gap.C:
		}
		select {
		case <-c.ctx.Done():
			return
		case <-c.bytes.drained:
			debug.FreeOSMemory()
			gap.Reset(memoryReturnGap)
		}
	}
}
