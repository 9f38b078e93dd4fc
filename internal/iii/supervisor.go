package iii

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wsbatch"
)

// supervise owns the connection loop: dial, serve until the connection
// ends, wait out the backoff delay, dial again. It returns when superCtx
// ends (Close or a fatal rejection).
func (c *Client) supervise() {
	defer c.supervisor.Done()
	ctx := c.superCtx
	policy := backoff{initial: c.opts.ReconnectInitial, max: c.opts.ReconnectMax, jitter: c.opts.ReconnectJitter}
	attempt := 0
	for {
		workerID, greeted, err := c.session(ctx)
		if greeted {
			attempt = 0
		}
		if ctx.Err() != nil {
			c.log.Info("engine connection closed", zap.String("worker_id", workerID))
			return
		}
		delay := policy.delay(attempt, rand.Float64)
		attempt++
		c.mu.Lock()
		c.lastErr = err
		c.notifyLocked()
		c.mu.Unlock()
		if greeted {
			c.log.Info("disconnected from engine", zap.String("worker_id", workerID),
				zap.Error(err), zap.Duration("retry_in", delay))
		} else {
			c.log.Info("engine connection failed", zap.String("url", c.opts.URL),
				zap.Error(err), zap.Duration("retry_in", delay))
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// session runs one connection from dial to its end. greeted reports
// whether the engine sent workerregistered, which resets the backoff.
func (c *Client) session(ctx context.Context) (workerID string, greeted bool, err error) {
	ws, nc, err := c.dial(ctx)
	if err != nil {
		return "", false, err
	}
	c.setStage("the WebSocket to " + c.opts.URL + " opened, but the engine never greeted the worker (workerregistered)")
	cn := newConn(ws, nc, connTiming{
		maxFrame:  c.opts.MaxFrameBytes,
		ping:      c.opts.PingInterval,
		idle:      c.opts.IdleTimeout,
		handshake: c.opts.HandshakeTimeout,
		write:     c.opts.WriteTimeout,
	})
	c.attach(cn)
	err = cn.serve(ctx, func(r io.Reader) error { return c.receive(cn, r) })
	c.detach(cn)
	workerID, greeted = cn.greeting()
	return workerID, greeted, err
}

// dial opens the WebSocket. The socket under it is returned too, as the
// wsbatch.Conn the writer batches frames on (docs/decisions.md D52); with
// wss:// it carries TLS records.
func (c *Client) dial(ctx context.Context) (*websocket.Conn, *wsbatch.Conn, error) {
	if u, err := url.Parse(c.opts.URL); err == nil && u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, nil, fmt.Errorf("dial %s: the engine URL must start with ws:// or wss://", c.opts.URL)
	}
	c.setStage("no TCP connection to " + c.opts.URL + " was made")
	// The dialer bounds the HTTP upgrade by HandshakeTimeout alone, not by
	// its ctx: abortOnClose ends the upgrade when the client closes, so a
	// one-shot caller (skills call) is bound by its own deadline, not the
	// handshake timeout, against a listener that accepts and never answers.
	var abort func() bool
	var batched *wsbatch.Conn
	netDial := c.opts.netDial
	if netDial == nil {
		netDial = (&net.Dialer{}).DialContext
	}
	d := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: c.opts.HandshakeTimeout,
		WriteBufferSize: wsbatch.FrameBufferSize, WriteBufferPool: wsbatch.BufferPool,
		NetDialContext: func(dialCtx context.Context, network, addr string) (net.Conn, error) {
			nc, err := netDial(dialCtx, network, addr)
			if err != nil {
				return nil, err
			}
			c.setStage("the TCP connection to " + addr + " opened, but the WebSocket upgrade got no answer (is an iii engine listening there?)")
			abort = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
			batched = wsbatch.Dial(nc)
			return batched, nil
		}}
	ws, resp, err := d.DialContext(ctx, c.opts.URL, nil)
	if abort != nil {
		abort()
	}
	if err != nil {
		if resp != nil {
			return nil, nil, fmt.Errorf("dial %s: %w (HTTP %d)", c.opts.URL, err, resp.StatusCode)
		}
		return nil, nil, fmt.Errorf("dial %s: %w", c.opts.URL, err)
	}
	return ws, batched, nil
}

// setStage records what the connection attempt under way waits for, for
// WaitFirstAttempt to say when its caller's deadline ends first.
func (c *Client) setStage(s string) {
	c.mu.Lock()
	c.stage = s
	c.mu.Unlock()
}

// attach makes cn the live connection. The handshake is queued first, in
// the same critical section that publishes cn, so a registration made
// concurrently is either in the handshake or queued after it, never lost.
// Provider subscriber sets start empty: the engine re-sends every binding
// to a provider that registers its type again.
func (c *Client) attach(cn *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.handshakeLocked() {
		cn.send(f)
	}
	for _, p := range c.providers {
		p.reset()
	}
	c.conn = cn
	c.notifyLocked()
}

// detach forgets cn. Calls waiting on it fail now: the engine discards the
// result of a call whose caller connection is gone, so it can never arrive.
// The OnDisconnect hooks run last, outside the lock, on the supervisor's
// goroutine: before the next connection is dialled.
func (c *Client) detach(cn *conn) {
	c.mu.Lock()
	if c.conn == cn {
		c.conn = nil
		c.ready = false
		c.workerID = ""
	}
	c.failPendingLocked(cn, fmt.Errorf("%w: connection lost before the result arrived", ErrNotConnected))
	c.notifyLocked()
	hooks := c.onDisconnect
	c.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// backoff is the reconnect schedule: initial·2ⁿ capped at max, then ± up
// to jitter·delay of uniform noise so that workers restarted together do
// not reconnect in lockstep.
type backoff struct {
	initial, max time.Duration
	jitter       float64 // fraction; ≤ 0 disables
}

// delay returns the wait before reconnect attempt n (0-based). rnd returns
// a number in [0, 1).
func (b backoff) delay(n int, rnd func() float64) time.Duration {
	d := b.initial
	for i := 0; i < n && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	if b.jitter > 0 {
		d += time.Duration(float64(d) * b.jitter * (2*rnd() - 1))
	}
	return max(d, 0)
}
