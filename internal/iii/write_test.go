package iii

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii/wire"
	"github.com/iii-hq/skills-go/internal/iii/wsbatch"
)

// appended is a result that writes itself, as resources-read's does.
type appended string

func (a appended) AppendJSON(dst []byte) []byte { return wire.AppendJSONString(dst, string(a)) }

// burstReply is the reply to call n of a burst: a few KiB that name n,
// and for one call several times the write buffer.
func burstReply(n int) string {
	size := 4200 + n
	if n == 7 {
		size = 3*wsbatch.FrameBufferSize + 11
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "call %d part %d \"quoted\"\n", n, i)
	}
	return b.String()[:size]
}

// A burst of replies, written while more are queued and one of them
// larger than the write buffer, each arrives at the engine once and whole
// (docs/decisions.md D52). Odd calls reply with a result that writes
// itself, even ones with a string encoded by reflection.
func TestBurstOfRepliesArrivesOnceAndWhole(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	c.RegisterFunction(Function{ID: "burst::reply", Handler: func(_ context.Context, req Request) (any, error) {
		n, err := strconv.Atoi(string(req.Data))
		if err != nil {
			return nil, err
		}
		if n%2 == 1 {
			return appended(burstReply(n)), nil
		}
		return burstReply(n), nil
	}})
	startReady(t, c)
	pc := p.waitConn(1)
	const calls = 64
	for n := range calls {
		pc.send(wire.InvokeFunction{InvocationID: invocationID(n), FunctionID: "burst::reply", Data: json.RawMessage(strconv.Itoa(n))})
	}
	results := func() []wire.InvocationResult {
		var out []wire.InvocationResult
		for _, m := range p.framesOn(1) {
			if r, ok := m.(wire.InvocationResult); ok {
				out = append(out, r)
			}
		}
		return out
	}
	p.wait("every reply", func() bool {
		n := 0
		for _, f := range p.frames {
			if _, ok := f.msg.(wire.InvocationResult); ok {
				n++
			}
		}
		return n >= calls
	})
	roundTrip(t, p, pc) // anything written twice would have arrived by now
	seen := map[string]bool{}
	for _, r := range results() {
		if seen[r.InvocationID] {
			t.Errorf("the reply to %s arrived twice", r.InvocationID)
		}
		seen[r.InvocationID] = true
	}
	for n := range calls {
		r := p.waitFrame("reply", resultFor(invocationID(n))).msg.(wire.InvocationResult)
		var got string
		if err := json.Unmarshal(r.Result, &got); err != nil || r.Error != nil {
			t.Fatalf("reply to call %d: %v, error %+v", n, err, r.Error)
		}
		if want := burstReply(n); got != want {
			t.Errorf("reply to call %d is %d bytes, want %d (or differs)", n, len(got), len(want))
		}
	}
	if len(seen) != calls {
		t.Errorf("%d distinct replies, want %d", len(seen), calls)
	}
}

// A result that writes itself is what encoding/json would have written,
// in the same frame with the same fields around it; it and a raw result,
// both copied into the frame without a second scan, keep the response
// budget.
func TestAppendedResultIsTheEncodedResult(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p, func(o *Options) { o.MaxResultBytes = 1 << 10 })
	text := "a <b>&</b> \"body\"\n\b\f\x00 \u2028 é"
	c.RegisterFunction(Function{ID: "f::appended", Handler: func(context.Context, Request) (any, error) { return appended(text), nil }})
	c.RegisterFunction(Function{ID: "f::reflected", Handler: func(context.Context, Request) (any, error) { return text, nil }})
	c.RegisterFunction(Function{ID: "f::big", Handler: func(context.Context, Request) (any, error) {
		return appended(strings.Repeat("x", 2<<10)), nil
	}})
	c.RegisterFunction(Function{ID: "f::big-raw", Handler: func(context.Context, Request) (any, error) {
		return json.RawMessage(`"` + strings.Repeat("x", 2<<10) + `"`), nil
	}})
	startReady(t, c)
	pc := p.waitConn(1)
	call := func(n int, fn string) []byte {
		id := invocationID(n)
		pc.send(wire.InvokeFunction{InvocationID: id, FunctionID: fn, Data: json.RawMessage(`{}`), Traceparent: "00-tp-01", Baggage: "k=v"})
		p.waitFrame("result", resultFor(id))
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, b := range pc.fromClient {
			if strings.Contains(string(b), id) {
				return b
			}
		}
		t.Fatalf("no frame for %s", id)
		return nil
	}
	direct, reflected := call(1, "f::appended"), call(2, "f::reflected")
	want := strings.NewReplacer(invocationID(2), invocationID(1), "f::reflected", "f::appended").Replace(string(reflected))
	if string(direct) != want {
		t.Errorf("frame of the appended result\n %s\nframe of the reflected result\n %s", direct, want)
	}
	for n, fn := range []string{"f::big", "f::big-raw"} {
		call(3+n, fn)
		r := p.waitFrame("result", resultFor(invocationID(3+n))).msg.(wire.InvocationResult)
		msg := "the result of " + fn + " is 2050 bytes, over this worker's response budget of 1024 bytes; ask for less"
		if r.Error == nil || r.Error.Code != CodeUnavailable || r.Error.Message != msg || r.Result != nil {
			t.Errorf("over-budget result of %s = %+v (error %+v), want unavailable %q", fn, r, r.Error, msg)
		}
	}
}
