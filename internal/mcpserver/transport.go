package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport wraps t so that its connections answer the MCP Skills
// extension's methods themselves and pass every other message to the SDK.
func (b *Bridge) Transport(t mcp.Transport) mcp.Transport { return &extTransport{b: b, inner: t} }

type extTransport struct {
	b     *Bridge
	inner mcp.Transport
}

func (t *extTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	return &extConn{Connection: c, b: t.b, ctx: cctx, cancel: cancel}, nil
}

// extConn answers skills/list and skills/get calls as it reads them, each
// in a goroutine of its own (a slow engine must not hold up the
// connection); Close cancels them and waits for them to end.
type extConn struct {
	mcp.Connection
	b      *Bridge
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	pending sync.WaitGroup
}

func (c *extConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !extensionMethod(req.Method) {
			return msg, nil
		}
		if !req.IsCall() {
			continue // a notification by that name asks for nothing
		}
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			continue
		}
		c.pending.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.pending.Done()
			_ = c.Connection.Write(c.ctx, c.b.answer(c.ctx, req)) // fails only once the connection is gone
		}()
	}
}

func (c *extConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	err := c.Connection.Close()
	c.pending.Wait()
	return err
}
