package engine

import (
	"encoding/json"
	"fmt"
	"runtime"
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

// A large result is queued as its frame's head, the result itself and
// the frame's tail: the same bytes wire.Encode writes, without copying
// the result (issue 22: the engine held a state::list result twice).
func TestLargeResultIsQueuedWithoutACopy(t *testing.T) {
	s := newTestServer(t)
	c := newConn(s, nil, nil, "192.0.2.1:9")
	result := json.RawMessage(`["` + strings.Repeat("x", 4<<20) + `"]`)
	r := wire.InvocationResult{InvocationID: "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a", FunctionID: "state::list",
		Result: result, Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Baggage: "k=v"}
	want, err := wire.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if !c.send(r) {
		t.Fatal("send refused the result")
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("queueing a %d-byte result allocated %d bytes, want it sent from where it lies", len(result), n)
	}
	frames, _ := c.out.take()
	if len(frames) != 1 {
		t.Fatalf("%d frames queued, want 1", len(frames))
	}
	m := frames[0]
	if got := string(m.Head) + string(m.Body) + string(m.Tail); got != string(want) {
		t.Errorf("the pieces differ from the encoded frame (%d bytes, want %d)", len(got), len(want))
	}
	if len(m.Body) == 0 || &m.Body[0] != &result[0] {
		t.Error("the result was copied into the queue")
	}
}

// state::list of a scope larger than the write buffer many times over
// arrives whole, in first-write order, as one message.
func TestLargeStateListArrivesWhole(t *testing.T) {
	s := newTestServer(t)
	var want []string
	for i := range 40 {
		value := fmt.Sprintf("%q", burstText(i)+strings.Repeat("y", 20<<10))
		if err := s.SetState("big", fmt.Sprintf("k%02d", i), json.RawMessage(value)); err != nil {
			t.Fatal(err)
		}
		want = append(want, value)
	}
	p := dial(t, s)
	got := p.callOK("state::list", `{"scope":"big"}`)
	if w := "[" + strings.Join(want, ",") + "]"; string(got) != w {
		t.Errorf("state::list returned %d bytes, want %d (or they differ)", len(got), len(w))
	}
	p.barrier()
}
