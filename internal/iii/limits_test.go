package iii

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// SetMaxResultBytes changes the budget of the next result on a running
// client: a result over the old budget arrives once the budget is raised,
// and is refused again, naming the new budget, once it is lowered.
func TestSetMaxResultBytesAppliesToTheNextResult(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p, func(o *Options) { o.MaxResultBytes = 1 << 10 })
	c.RegisterFunction(Function{ID: "big", Handler: func(context.Context, Request) (any, error) {
		return strings.Repeat("x", 2<<10), nil
	}})
	startReady(t, c)
	conn := p.waitConn(1)
	call := func(n int) wire.InvocationResult {
		id := invocationID(n)
		conn.send(wire.InvokeFunction{InvocationID: id, FunctionID: "big", Data: json.RawMessage(`{}`)})
		return p.waitFrame("result", resultFor(id)).msg.(wire.InvocationResult)
	}
	if res := call(1); res.Error == nil {
		t.Fatalf("a 2 KiB result under a 1 KiB budget = %+v, want an error", res)
	}
	c.SetMaxResultBytes(4 << 10)
	if res := call(2); res.Error != nil || len(res.Result) != 2050 {
		t.Errorf("after raising the budget: error %+v, %d bytes; want the result", res.Error, len(res.Result))
	}
	c.SetMaxResultBytes(1 << 10)
	if res := call(3); res.Error == nil || !strings.Contains(res.Error.Message, "response budget of 1024 bytes") {
		t.Errorf("after lowering the budget: %+v, want an error naming 1024 bytes", res.Error)
	}
	c.SetMaxResultBytes(0)
	if got := c.maxResultBytes(); got != DefaultMaxResultBytes {
		t.Errorf("SetMaxResultBytes(0) = %d, want the default %d", got, DefaultMaxResultBytes)
	}
}
