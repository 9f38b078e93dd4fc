package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/iii-hq/skills-go/internal/iii/wire"
	"github.com/iii-hq/skills-go/internal/iii/wsbatch"
)

// randomJSON is a random JSON value of every kind, nested up to depth,
// with strings that need escaping (quotes, controls, HTML, non-ASCII) and
// numbers as a client writes them.
func randomJSON(r *rand.Rand, depth int) any {
	kinds := 7
	if depth <= 0 {
		kinds = 5
	}
	switch r.IntN(kinds) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return json.Number([]string{"0", "-1", "3.25", "1e300", "12345678901234567890", "-0.5e-7"}[r.IntN(6)])
	case 3:
		return randomString(r, 40)
	case 4:
		return randomString(r, 6000) // a body-sized string
	case 5:
		a := make([]any, r.IntN(5))
		for i := range a {
			a[i] = randomJSON(r, depth-1)
		}
		return a
	default:
		o := map[string]any{}
		for range r.IntN(5) {
			o[randomString(r, 8)] = randomJSON(r, depth-1)
		}
		return o
	}
}

func randomString(r *rand.Rand, maxLen int) string {
	pieces := []string{"a", "Z", " ", `"`, `\`, "\n", "\t", "\x00", "\x1f", "<", ">", "&", "é", "雪", "😀", "\u2028", "/"}
	var b strings.Builder
	for range r.IntN(maxLen + 1) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// The frame of a state::list reply is, byte for byte, the frame the
// engine wrote when it joined the scope's values into one array, for
// scopes of every size (empty, one value, many; under and over the size
// from which the values are written one by one) and values of every kind
// of JSON (docs/decisions.md D52).
func TestStateListFrameIsTheJoinedArray(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	r := rand.New(rand.NewPCG(22, 52))
	sizes := []int{0, 1, 2, 3, 17, 40, 120}
	small, large := 0, 0
	for round := range 40 {
		scope := fmt.Sprintf("scope-%d", round)
		n := sizes[round%len(sizes)]
		if round%len(sizes) == len(sizes)-1 {
			n += r.IntN(60)
		}
		for i := range n {
			raw, err := json.Marshal(randomJSON(r, 3))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SetState(scope, fmt.Sprintf("k%d", r.IntN(n+1)), raw); err != nil {
				t.Fatalf("set %s #%d: %v", scope, i, err)
			}
		}
		call := wire.InvokeFunction{
			InvocationID: uuid.NewString(), FunctionID: "state::list",
			Data:        json.RawMessage(fmt.Sprintf(`{"scope":%q}`, scope)),
			Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Baggage: "round=" + fmt.Sprint(round),
		}
		joined := joinArray(s.StateValues(scope))
		if len(joined) < largeResult {
			small++
		} else {
			large++
		}
		want, err := wire.Encode(wire.InvocationResult{
			InvocationID: call.InvocationID, FunctionID: call.FunctionID, Result: joined,
			Traceparent: call.Traceparent, Baggage: call.Baggage,
		})
		if err != nil {
			t.Fatal(err)
		}
		p.send(call)
		_, got, err := p.recvRaw()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("round %d (%d values, %d bytes): the frame differs from the joined form\n got %.300s\nwant %.300s",
				round, len(s.StateValues(scope)), len(joined), got, want)
		}
	}
	if small == 0 || large == 0 {
		t.Errorf("%d listings under %d bytes and %d over: the test must write both kinds", small, largeResult, large)
	}
	p.barrier()
}

// messageBytes is what the writer puts on the wire for m.
func messageBytes(m wsbatch.Message) string {
	var b strings.Builder
	b.Write(m.Head)
	b.Write(m.Body)
	if m.Elements != nil {
		b.WriteByte('[')
		for i, v := range m.Elements {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(v)
		}
		b.WriteByte(']')
	}
	b.Write(m.Tail)
	return b.String()
}

// A large state::list reply is queued as the stored values themselves,
// not as a joined array; setting every key again after it is queued does
// not change the frame, which is the scope as it was when listed.
func TestLargeStateListIsQueuedAsTheStoredValues(t *testing.T) {
	s := newTestServer(t)
	const n = 256
	for i := range n {
		v := fmt.Sprintf(`{"i":%d,"pad":%q}`, i, strings.Repeat("v", 16<<10))
		if err := s.SetState("big", fmt.Sprintf("k%03d", i), json.RawMessage(v)); err != nil {
			t.Fatal(err)
		}
	}
	stored := s.StateValues("big")
	c := newConn(s, nil, nil, "192.0.2.1:9")
	id := uuid.NewString()
	want, err := wire.Encode(wire.InvocationResult{InvocationID: id, FunctionID: "state::list", Result: joinArray(stored)})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.invoke(c, wire.InvokeFunction{InvocationID: id, FunctionID: "state::list", Data: json.RawMessage(`{"scope":"big"}`)})
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Errorf("listing a %d-byte scope allocated %d bytes, want its values sent from where they lie", len(want), grown)
	}
	for i := range n {
		if err := s.SetState("big", fmt.Sprintf("k%03d", i), json.RawMessage(`"overwritten"`)); err != nil {
			t.Fatal(err)
		}
	}
	frames, _ := c.out.take()
	if len(frames) != 1 {
		t.Fatalf("%d frames queued, want 1", len(frames))
	}
	m := frames[0]
	if len(m.Elements) != n || &m.Elements[0][0] != &stored[0][0] {
		t.Fatalf("the reply holds %d elements, not the %d stored values themselves", len(m.Elements), n)
	}
	if got := messageBytes(m); got != string(want) {
		t.Errorf("the queued frame (%d bytes) is not the joined form of the listed scope (%d bytes)", len(got), len(want))
	}
}

// A caller that needs the result's bytes (any call without a connection
// to write it to) gets the joined array, as before.
func TestStateListJoinsForACallerWithoutASocket(t *testing.T) {
	s := newTestServer(t)
	for i, v := range []string{`1`, `{"a":[true,null]}`, `"x"`} {
		if err := s.SetState("sc", fmt.Sprint(i), json.RawMessage(v)); err != nil {
			t.Fatal(err)
		}
	}
	var got json.RawMessage
	s.call(callRequest{functionID: "state::list", data: json.RawMessage(`{"scope":"sc"}`),
		done: func(res json.RawMessage, e *wire.ErrorBody) {
			if e != nil {
				t.Errorf("state::list: %+v", e)
			}
			got = res
		}})
	if want := `[1,{"a":[true,null]},"x"]`; string(got) != want {
		t.Errorf("state::list = %s, want %s", got, want)
	}
}

// state::set calls that overwrite a scope's values while a large listing
// of it is being written do not corrupt the frame: every listing arrives
// whole, in key order, each element a value its key held.
func TestStateSetDuringALargeListWriteKeepsTheFrame(t *testing.T) {
	s := newTestServer(t)
	const n = 64
	value := func(i, version int) string {
		return fmt.Sprintf(`{"k":%d,"pad":%q,"v":%d}`, i, strings.Repeat("p", 8<<10+version%7*1000), version)
	}
	for i := range n {
		if err := s.SetState("busy", fmt.Sprintf("k%02d", i), json.RawMessage(value(i, 0))); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for version := 1; ; version++ {
			select {
			case <-stop:
				return
			default:
			}
			i := version % n
			if err := s.SetState("busy", fmt.Sprintf("k%02d", i), json.RawMessage(value(i, version))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
	})
	p := dial(t, s)
	for range 6 {
		got := p.callOK("state::list", `{"scope":"busy"}`)
		var rows []struct {
			K, V int
			Pad  string
		}
		if err := json.Unmarshal(got, &rows); err != nil {
			t.Fatalf("a listing written during sets is not JSON (%d bytes): %v", len(got), err)
		}
		if len(rows) != n {
			t.Fatalf("a listing has %d values, want %d", len(rows), n)
		}
		for i, r := range rows {
			if r.K != i || value(r.K, r.V) != fmt.Sprintf(`{"k":%d,"pad":%q,"v":%d}`, r.K, r.Pad, r.V) {
				t.Fatalf("value %d of a listing is k=%d v=%d with a %d-byte pad: not one its key held", i, r.K, r.V, len(r.Pad))
			}
		}
	}
}
