package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii"
)

// flakyEngine is an Engine on one connection whose first calls of some
// functions fail, as a busy engine's do; it records every call at its
// fake-clock offset from start.
type flakyEngine struct {
	start time.Time

	mu    sync.Mutex
	fails map[string]int // function id -> failures left
	calls []string
}

func (e *flakyEngine) Call(_ context.Context, fn string, _ any) (json.RawMessage, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, fmt.Sprintf("%v %s", time.Since(e.start), fn))
	if e.fails[fn] > 0 {
		e.fails[fn]--
		return nil, errors.New("engine busy")
	}
	switch fn {
	case "engine::triggers::list":
		return json.RawMessage(`{"triggers":[{"id":"state"}]}`), nil
	case "state::list":
		return json.RawMessage(`[]`), nil
	}
	return nil, &iii.Error{Code: iii.CodeFunctionNotFound, Message: fmt.Sprintf("Function %s not found", fn)}
}

func (e *flakyEngine) WaitConnection(ctx context.Context, previous string) (string, error) {
	if previous == "" {
		return "w1", nil
	}
	<-ctx.Done() // one connection, for the whole test
	return "", ctx.Err()
}

func (e *flakyEngine) Connection() string            { return "w1" }
func (e *flakyEngine) OnDisconnect(func())           {}
func (e *flakyEngine) RegisterFunction(iii.Function) {}
func (e *flakyEngine) RegisterTrigger(iii.Trigger)   {}
func (e *flakyEngine) UnregisterFunction(string)     {}
func (e *flakyEngine) UnregisterTrigger(string)      {}

func (e *flakyEngine) callLog() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

// A failed engine::triggers::list or state::list is asked again retryDelay
// (500 ms) later, while the connection lasts, and the scope becomes
// valid with the first load that succeeds, not before. An engine without
// state::list_entries is asked for it once on the connection. On a fake clock
// (testing/synctest), so the spacing is exact.
func TestFailedLoadsAreRetriedEveryRetryDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := &flakyEngine{start: time.Now(), fails: map[string]int{"engine::triggers::list": 1, "state::list": 2}}
		scope := newTestScope(1 << 20)
		cat := New(eng, time.Second, nil, scope)
		cat.Start()
		t.Cleanup(cat.Close)

		loaded := 3 * retryDelay
		time.Sleep(loaded - time.Nanosecond)
		synctest.Wait()
		if scope.Valid() {
			t.Fatalf("scope valid before the load that succeeds; calls %q", eng.callLog())
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if !scope.Valid() || cat.Mode() != ModeLive {
			t.Errorf("at %v: valid %v, mode %q; want the scope loaded, live", loaded, scope.Valid(), cat.Mode())
		}
		want := []string{
			"0s engine::triggers::list",
			"500ms engine::triggers::list",
			"500ms state::list_entries", // not found: asked once per connection
			"500ms state::list",
			"1s state::list",
			"1.5s state::list",
		}
		if diff := cmp.Diff(want, eng.callLog()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
}
