package engine

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"
)

// progressConn is a connection to Redis whose read deadline is a bound on
// silence, not on a whole reply. go-redis sets one read deadline before it
// reads a reply; a listing of a large scope (100,000 skills of 4 KiB is a
// 400 MB HVALS reply) takes longer than any bound fit for one row, so under
// that deadline it failed every time and a worker's load never finished
// (docs/engine.md, "State in Redis"). Here each read may wait as long as
// the deadline allowed when it was set: a Redis that stops sending is
// still found within that, and one that keeps sending is read to the end.
type progressConn struct {
	net.Conn
	wait time.Duration // how long one read may wait; 0: no deadline
}

// dialProgress is the store's go-redis Dialer.
func dialProgress(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &progressConn{Conn: c}, nil
}

// SetReadDeadline notes how long a read may wait from now on.
func (c *progressConn) SetReadDeadline(t time.Time) error {
	c.wait = 0
	if !t.IsZero() {
		c.wait = max(time.Until(t), time.Millisecond)
	}
	return c.Conn.SetReadDeadline(t)
}

// SetDeadline sets both deadlines, the read one as SetReadDeadline does.
func (c *progressConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

// Read moves the deadline on by the allowed wait before each read.
func (c *progressConn) Read(p []byte) (int, error) {
	if c.wait > 0 {
		if err := c.Conn.SetReadDeadline(time.Now().Add(c.wait)); err != nil {
			return 0, err
		}
	}
	return c.Conn.Read(p)
}

// SyscallConn lets go-redis check an idle pooled connection's health as
// it does a plain TCP connection's.
func (c *progressConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}
