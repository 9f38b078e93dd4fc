package iii

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Large results reuse written frames (frame_pool.go); however many are
// answered at once, each caller receives its own result, byte for byte:
// a frame is never reused before it is written.
func TestLargeResultsReuseFramesWithoutMixingThem(t *testing.T) {
	const n = 24
	p := newPeer(t)
	c, _ := newClient(t, p)
	result := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf("%q", bytes.Repeat([]byte{byte('a' + i)}, minPooledFrame+i*1000)))
	}
	c.RegisterFunction(Function{ID: "large", Handler: func(_ context.Context, req Request) (any, error) {
		var in struct{ I int }
		if err := json.Unmarshal(req.Data, &in); err != nil {
			return nil, err
		}
		return result(in.I), nil
	}})
	startReady(t, c)
	pc := p.waitConn(1)
	for round := range 3 {
		for i := range n {
			pc.send(wire.InvokeFunction{InvocationID: invocationID(round*n + i), FunctionID: "large",
				Data: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
		}
		for i := range n {
			p.waitFrame("result", resultFor(invocationID(round*n+i)))
		}
	}
	for _, m := range p.framesOn(1) {
		r, ok := m.(wire.InvocationResult)
		if !ok {
			continue
		}
		var id int
		fmt.Sscanf(r.InvocationID, "%08d", &id)
		if want := result(id % n); !bytes.Equal(r.Result, want) {
			t.Fatalf("invocation %d received %d bytes starting %.20s, want %d starting %.20s", id, len(r.Result), r.Result, len(want), want)
		}
	}
}
