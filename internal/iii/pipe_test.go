package iii

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
)

// pipeURL is the engine address of a pipe peer. The host is a loopback
// address so that no proxy from the environment is consulted; nothing
// listens there, the client's dials go to the pipe listener.
const pipeURL = "ws://127.0.0.1:9/"

// pipeListener connects clients to a peer over net.Pipe instead of TCP.
// A pipe blocks on channels and its deadlines are timers, so a client and
// a peer joined by one run on the fake clock of a testing/synctest bubble;
// a loopback socket never blocks durably there.
type pipeListener struct {
	serve func(w http.ResponseWriter, r *http.Request)
	wg    sync.WaitGroup // the goroutine of each connection

	mu       sync.Mutex
	closed   bool
	refuse   bool        // dials fail at once, as when no engine listens
	attempts []time.Time // when each dial was made
	conns    []net.Conn  // the peer's end of each pipe
}

// newPipePeer is newPeer over a pipe listener: give the client its dial
// (pipeClient does).
func newPipePeer(t testing.TB) *peer {
	p := &peer{t: t, changed: make(chan struct{})}
	p.pipes = &pipeListener{serve: p.serve}
	t.Cleanup(p.close)
	return p
}

// dial is the client's Options.netDial.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts = append(l.attempts, time.Now())
	if l.refuse || l.closed {
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: syscall.ECONNREFUSED}
	}
	client, server := net.Pipe()
	l.conns = append(l.conns, server)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer server.Close()
		br := bufio.NewReader(server)
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		l.serve(&hijackWriter{conn: server, br: br, header: http.Header{}}, req)
	}()
	return client, nil
}

// setRefuse makes dials fail (true) or reach the peer (false).
func (l *pipeListener) setRefuse(refuse bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refuse = refuse
}

// dials returns when each dial was made, as offsets from start.
func (l *pipeListener) dials(start time.Time) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]time.Duration, len(l.attempts))
	for i, at := range l.attempts {
		out[i] = at.Sub(start)
	}
	return out
}

// close refuses further dials, ends every pipe and waits for their
// goroutines.
func (l *pipeListener) close() {
	l.mu.Lock()
	l.closed = true
	for _, c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// hijackWriter is the http.ResponseWriter of one request read from a
// pipe: enough for websocket.Upgrader, which hijacks the connection.
type hijackWriter struct {
	conn   net.Conn
	br     *bufio.Reader
	header http.Header
}

func (w *hijackWriter) Header() http.Header         { return w.header }
func (w *hijackWriter) WriteHeader(int)             {} // a refused upgrade: the pipe is closed after it
func (w *hijackWriter) Write(b []byte) (int, error) { return len(b), nil }

func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return w.conn, bufio.NewReadWriter(w.br, bufio.NewWriter(w.conn)), nil
}

// pipeClient returns a client of the pipe peer p, with the default
// timings unless opts change them and jitter off, and an observed logger.
// It must run in a bubble; its cleanup closes it, waits for the bubble to
// settle and fails the test if any goroutine the client started is left.
func pipeClient(t *testing.T, p *peer, opts ...func(*Options)) (*Client, *testLogs) {
	t.Helper()
	logs := newTestLogs()
	o := Options{
		URL:             p.url(),
		Name:            "test-worker",
		Logger:          zap.New(logs.core()),
		ReconnectJitter: -1,
		netDial:         p.pipes.dial,
	}
	for _, f := range opts {
		f(&o)
	}
	c := New(o)
	t.Cleanup(func() {
		c.Close()
		synctest.Wait() // every goroutine has returned or is blocked
		if stacks := clientGoroutines(); stacks != "" {
			t.Errorf("client goroutines still running after Close:\n%s", stacks)
		}
	})
	return c, logs
}
