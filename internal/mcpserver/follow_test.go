package mcpserver

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/iii-hq/skills-go/internal/iii"
)

// heldRegistry is a Caller whose first Sync is held at its first call
// until released, answering {} to everything; it counts the Syncs (each
// starts with skills::resources-list). It is also the Registrar Follow
// registers its function with.
type heldRegistry struct {
	release chan struct{}

	mu      sync.Mutex
	syncs   int
	handler iii.Handler
}

func (h *heldRegistry) Call(ctx context.Context, fn string, _ any) (json.RawMessage, error) {
	h.mu.Lock()
	if fn == "skills::resources-list" {
		h.syncs++
	}
	first := h.syncs == 1
	h.mu.Unlock()
	if first && fn == "skills::resources-list" {
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return json.RawMessage(`{}`), nil
}

func (h *heldRegistry) RegisterFunction(f iii.Function) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.handler = f.Handler
}

func (h *heldRegistry) RegisterTrigger(iii.Trigger) {}

// followHeld starts Follow over a heldRegistry, stopped in t.Cleanup (a
// second stop does nothing), and returns the registry, a function that
// delivers one change event, and stop.
func followHeld(t *testing.T) (reg *heldRegistry, event, stop func()) {
	reg = &heldRegistry{release: make(chan struct{})}
	stop = New(reg, "test", nil).Follow(reg)
	t.Cleanup(stop)
	return reg, func() {
		t.Helper()
		if _, err := reg.handler(context.Background(), iii.Request{Data: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}, stop
}

// count waits until the bubble settles and returns how many Syncs began.
func (h *heldRegistry) count() int {
	synctest.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.syncs
}

// Follow syncs once per change event, and the events that arrive while a
// Sync runs are one more Sync, not one each. The bubble (testing/synctest)
// makes "while a Sync runs" exact.
func TestFollowCoalescesEventsDuringASync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, event, _ := followHeld(t)

		event()
		if n := reg.count(); n != 1 {
			t.Fatalf("%d syncs after one event, want 1", n)
		}
		for range 5 { // while the first Sync is held
			event()
		}
		if n := reg.count(); n != 1 {
			t.Fatalf("%d syncs while the first is held, want 1", n)
		}
		close(reg.release)
		if n := reg.count(); n != 2 {
			t.Fatalf("%d syncs after 5 events during the first, want 2 (one more for all of them)", n)
		}
		event()
		if n := reg.count(); n != 3 {
			t.Errorf("%d syncs after a later event, want 3", n)
		}
	})
}

// Stopping Follow during a Sync ends that Sync (its calls are cancelled)
// and returns: the held call never returns otherwise, and the bubble
// would report the goroutine left blocked.
func TestFollowStopEndsASyncInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, event, stop := followHeld(t)
		event()
		if n := reg.count(); n != 1 {
			t.Fatalf("%d syncs after one event, want 1", n)
		}
		stop() // returns only once the held Sync has ended
	})
}
