package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// engine::functions-available on a fake clock (testing/synctest): a
// change to the set of function ids fires at the next tick of the poll
// (5 s by default), once, and not before; a tick with no change fires
// nothing. Only the poll and the registry run here, the subscriber being
// an in-process function (no sockets, which never block durably in a
// bubble); TestFunctionsAvailableFiresWhenTheSetChanges covers a worker
// subscribed over a socket.
func TestFunctionsAvailableFiresAtTheNextPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := bareEngine(t, Options{FunctionsPollInterval: defaultFunctionsPollInterval})
		builtins := map[string]bool{}
		for id := range s.functions {
			builtins[id] = true
		}
		start := time.Now()
		var mu sync.Mutex
		var fired []string // "offset: function ids"
		watch := func(_ *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
			var p struct {
				Functions []struct {
					ID string `json:"function_id"`
				} `json:"functions"`
			}
			if err := json.Unmarshal(data, &p); err != nil {
				t.Errorf("payload %s: %v", data, err)
			}
			var ids []string
			for _, f := range p.Functions {
				if !builtins[f.ID] { // always there
					ids = append(ids, f.ID)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			fired = append(fired, fmt.Sprintf("%v: %s", time.Since(start), strings.Join(ids, " ")))
			return nil, nil
		}
		setFunction := func(id string, present bool) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if present {
				s.functions[id] = &function{id: id, run: watch}
			} else {
				delete(s.functions, id)
			}
		}
		setFunction("watch::functions", true)
		s.mu.Lock()
		s.bindings["fa"] = &binding{id: "fa", triggerType: triggerFunctionsAvailable, functionID: "watch::functions"}
		s.mu.Unlock()
		s.bg.Add(1)
		go s.watchFunctions(s.functionIDsSignature())
		// check sleeps to offset at and compares what fired so far.
		check := func(at time.Duration, want ...string) {
			t.Helper()
			time.Sleep(at - time.Since(start))
			synctest.Wait()
			mu.Lock()
			got := slices.Clone(fired)
			mu.Unlock()
			if !slices.Equal(want, got) {
				t.Fatalf("fired by %v: %q, want %q", at, got, want)
			}
		}
		tick := defaultFunctionsPollInterval

		check(tick) // nothing changed since the start
		setFunction("svc::f", true)
		check(2*tick - time.Nanosecond)
		added := fmt.Sprintf("%v: svc::f watch::functions", 2*tick)
		check(2*tick, added)
		check(3*tick, added) // unchanged since

		time.Sleep(time.Second)
		setFunction("svc::f", false)
		check(4*tick-time.Nanosecond, added)
		check(4*tick, added, fmt.Sprintf("%v: watch::functions", 4*tick))
	})
}
