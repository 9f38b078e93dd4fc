package iii

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
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
func newClient(t *testing.T, p *peer, opts ...func(*Options)) (*Client, *testLogs) {
	t.Helper()
	logs := newTestLogs()
	o := Options{
		URL:              p.url(),
		Name:             "test-worker",
		Description:      "a worker under test",
		Version:          "1.2.3",
		Logger:           zap.New(logs.core()),
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
// the client's methods outlives it. Close returns once every such
// goroutine has called Done on its WaitGroup, but a goroutine is still
// listed until it has also returned, a few instructions later; the runtime
// announces no goroutine's exit, so the check yields the processor to them
// (it never sleeps) until they are gone, and fails only if some are still
// there when the wait bound passes.
func assertNoClientGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	stacks := clientGoroutines()
	for stacks != "" && time.Now().Before(deadline) {
		runtime.Gosched()
		stacks = clientGoroutines()
	}
	if stacks != "" {
		t.Errorf("client goroutines still running after Close:\n%s", stacks)
	}
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

// waitState blocks until cond holds, checking it again on every state
// change of c (a connection attached or lost, a greeting, Close, a
// rejection), and fails the test when the wait bound passes first.
func waitState(t *testing.T, c *Client, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitHandlers waits until every handler goroutine c started has
// finished: its result, if it owed one, is queued by then.
func waitHandlers(t *testing.T, c *Client) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.handlers.Wait()
	}()
	t.Cleanup(func() {
		c.Close() // cancels the handlers, so the waiter ends
		<-done
	})
	waitClosed(t, done, "handlers to finish")
}

// waitClosed waits until ch is closed (or yields a value), failing the
// test when the wait bound passes first.
func waitClosed[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	select {
	case <-ch:
	case <-deadline.C:
		t.Fatalf("timed out waiting for %s", what)
	}
}

// testLogs is the client's observed log; waits on it wake on every entry.
type testLogs struct {
	*observer.ObservedLogs
	observed zapcore.Core

	mu      sync.Mutex
	changed chan struct{} // closed and replaced after every entry
}

func newTestLogs() *testLogs {
	core, logs := observer.New(zapcore.DebugLevel)
	return &testLogs{ObservedLogs: logs, observed: core, changed: make(chan struct{})}
}

// core is the zap core to log through.
func (l *testLogs) core() zapcore.Core { return notifyingCore{Core: l.observed, logs: l} }

func (l *testLogs) notify() {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.changed)
	l.changed = make(chan struct{})
}

// wait blocks until cond holds, checking it again after every log entry,
// and fails the test when the wait bound passes first.
func (l *testLogs) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		changed := l.changed
		l.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// notifyingCore records through the observer core, then wakes the waits.
type notifyingCore struct {
	zapcore.Core
	logs *testLogs
}

func (c notifyingCore) With(fields []zapcore.Field) zapcore.Core {
	return notifyingCore{Core: c.Core.With(fields), logs: c.logs}
}

func (c notifyingCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c notifyingCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	err := c.Core.Write(e, fields)
	c.logs.notify()
	return err
}

// waitLog waits for a log entry with the message and returns the first.
func waitLog(t *testing.T, logs *testLogs, msg string) observer.LoggedEntry {
	t.Helper()
	var got observer.LoggedEntry
	logs.wait(t, "log "+msg, func() bool {
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
