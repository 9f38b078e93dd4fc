package iii

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// newClient returns a client of p with short timings and an observed
// logger. Its cleanup closes it and fails the test if any goroutine the
// client started is still alive.
func newClient(t *testing.T, p *peer, opts ...func(*Options)) (*Client, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	o := Options{
		URL:              p.url(),
		Name:             "test-worker",
		Description:      "a worker under test",
		Version:          "1.2.3",
		Logger:           zap.New(core),
		CallTimeout:      2 * time.Second,
		ReconnectInitial: 5 * time.Millisecond,
		ReconnectMax:     20 * time.Millisecond,
		ReconnectJitter:  -1,
		HandshakeTimeout: 2 * time.Second,
		WriteTimeout:     2 * time.Second,
	}
	for _, f := range opts {
		f(&o)
	}
	c := New(o)
	t.Cleanup(func() {
		c.Close()
		assertNoClientGoroutines(t)
	})
	return c, logs
}

// startReady starts c and waits for its first handshake.
func startReady(t *testing.T, c *Client) {
	t.Helper()
	c.Start()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
}

// assertNoClientGoroutines fails if a goroutine running, or started by,
// the client's methods outlives it.
func assertNoClientGoroutines(t *testing.T) {
	t.Helper()
	var stacks string
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		stacks = clientGoroutines()
		if stacks == "" {
			return
		}
	}
	t.Errorf("client goroutines still running after Close:\n%s", stacks)
}

func clientGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var leaked []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		if strings.Contains(s, "internal/iii.(*Client)") || strings.Contains(s, "internal/iii.(*conn)") ||
			strings.Contains(s, "internal/iii.(*Provider)") {
			leaked = append(leaked, s)
		}
	}
	return strings.Join(leaked, "\n\n")
}

// eventually polls cond until it holds or the wait bound passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitFor); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitLog waits for a log entry with the message and returns it.
func waitLog(t *testing.T, logs *observer.ObservedLogs, msg string) observer.LoggedEntry {
	t.Helper()
	var got observer.LoggedEntry
	eventually(t, "log "+msg, func() bool {
		entries := logs.FilterMessage(msg).All()
		if len(entries) == 0 {
			return false
		}
		got = entries[0]
		return true
	})
	return got
}

// isType matches frames of one type, optionally on one connection (0 = any).
func isType(conn int, typ string) func(received) bool {
	return func(r received) bool {
		return (conn == 0 || r.conn == conn) && r.msg.MessageType() == typ
	}
}

// roundTrip proves the connection is still served: a JSON ping sent now
// is answered, so everything the peer sent before it has been read.
func roundTrip(t *testing.T, p *peer, pc *peerConn) {
	t.Helper()
	p.mu.Lock()
	before := 0
	for _, f := range p.frames {
		if f.conn == pc.n && f.msg.MessageType() == wire.TypePong {
			before++
		}
	}
	p.mu.Unlock()
	pc.send(wire.Ping{})
	p.wait("pong", func() bool {
		n := 0
		for _, f := range p.frames {
			if f.conn == pc.n && f.msg.MessageType() == wire.TypePong {
				n++
			}
		}
		return n > before
	})
}

func asRejected(err error, target **RegistrationRejectedError) bool { return errors.As(err, target) }
