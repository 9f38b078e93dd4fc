package worker

import (
	"container/list"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimit is a listener that holds at most max connections (20,200
// idle ones once used every descriptor, and new clients timed out;
// issue 27). At the bound, accepting a new connection closes the one
// that has waited the longest without a request in progress: idle
// between requests (http.StateIdle) or yet to send its first request
// (http.StateNew, which covers slow headers and TLS handshakes). So a
// flood of idle connections cannot lock clients out: each new client
// pushes the oldest idle one out. Only when every connection is in a
// request is the new one closed at once. The http.Server reports states
// through track, its ConnState.
type connLimit struct {
	net.Listener
	max int

	mu      sync.Mutex
	open    int
	waiting list.List // of *limitedConn, in StateNew or StateIdle, the longest waiting first
}

func limitConns(ln net.Listener, max int) *connLimit {
	return &connLimit{Listener: ln, max: max}
}

// limitedConn is one connection of a connLimit.
type limitedConn struct {
	net.Conn
	limit   *connLimit
	waiting *list.Element // in limit.waiting, or nil; under limit.mu
	closed  bool          // under limit.mu
	once    sync.Once
}

// Accept gives the next connection, making room for it at the bound.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		var oldest *limitedConn
		if l.open >= l.max {
			front := l.waiting.Front()
			if front == nil { // every connection is in a request
				l.mu.Unlock()
				c.Close() //nolint:errcheck // refused
				continue
			}
			oldest = l.waiting.Remove(front).(*limitedConn)
			oldest.waiting = nil
		}
		lc := &limitedConn{Conn: c, limit: l}
		lc.waiting = l.waiting.PushBack(lc)
		l.open++
		l.mu.Unlock()
		if oldest != nil {
			oldest.Close() //nolint:errcheck // its server goroutine sees the close and ends
		}
		return lc, nil
	}
}

// Close closes the connection and frees its place, once.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		l := c.limit
		l.mu.Lock()
		defer l.mu.Unlock()
		if c.waiting != nil {
			l.waiting.Remove(c.waiting)
			c.waiting = nil
		}
		c.closed = true
		l.open--
	})
	return err
}

// track is the http.Server's ConnState: it keeps the waiting list in
// the order connections started waiting.
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lc.waiting != nil {
		l.waiting.Remove(lc.waiting)
		lc.waiting = nil
	}
	if (state == http.StateNew || state == http.StateIdle) && !lc.closed {
		lc.waiting = l.waiting.PushBack(lc)
	}
}

// bodyDeadline gives a request's body httpBodyTimeout to arrive, then
// lifts the deadline once it has been read, so that a response streamed
// for long afterwards (an SSE stream) is not cut. A connection's
// deadline is its own, so a slow body no longer holds it forever; a
// ReadTimeout would also cut the long-lived GET stream, which has no
// body.
func bodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(httpBodyTimeout)); err == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts its connection's read deadline at the body's end.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.rc.SetReadDeadline(time.Time{}) //nolint:errcheck // the connection may be gone
	}
	return n, err
}
