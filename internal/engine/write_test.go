package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii/wire"
	"github.com/iii-hq/skills-go/internal/iii/wsbatch"
)

// burstText is the result of call n of a burst: a few KiB naming n, and
// for one call several times the write buffer.
func burstText(n int) string {
	size := 4200 + n
	if n == 5 {
		size = 3*wsbatch.FrameBufferSize + 7
	}
	tag := fmt.Sprintf("call %d;", n)
	return strings.Repeat(tag, size/len(tag)+1)[:size]
}

// A burst of calls sent back to back is delivered to the callee and its
// results to the caller while the engine's writers have several frames
// queued (written in batches, docs/decisions.md D52): each result arrives
// once, whole and for its own call, and nothing follows them.
func TestBurstOfResultsArrivesOnceAndWhole(t *testing.T) {
	s := newTestServer(t)
	callee, caller := dial(t, s), dial(t, s)
	callee.register("burst::echo")
	callee.serve(func(inv wire.InvokeFunction) wire.InvocationResult {
		n, err := strconv.Atoi(string(inv.Data))
		if err != nil {
			return wire.InvocationResult{Error: &wire.ErrorBody{Code: "bad", Message: err.Error()}}
		}
		b, _ := json.Marshal(burstText(n))
		return wire.InvocationResult{Result: b}
	})
	const calls = 48
	want := map[string]int{}
	for n := range calls {
		want[caller.invoke("burst::echo", strconv.Itoa(n))] = n
	}
	for range calls {
		res := expect[wire.InvocationResult](caller)
		n, ok := want[res.InvocationID]
		if !ok {
			t.Fatalf("a result for %s, which is not outstanding (twice, or never called)", res.InvocationID)
		}
		delete(want, res.InvocationID)
		var got string
		if err := json.Unmarshal(res.Result, &got); err != nil || res.Error != nil {
			t.Fatalf("result of call %d: %v, error %+v", n, err, res.Error)
		}
		if got != burstText(n) {
			t.Errorf("result of call %d is %d bytes, want %d (or differs)", n, len(got), len(burstText(n)))
		}
	}
	caller.barrier() // nothing after the results: none came twice
}
