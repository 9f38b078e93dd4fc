package engine

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/redistest"
)

// slowLink forwards connections to a Redis server, passing what the
// server sends back in chunks of chunk bytes gap apart (a slow link), or,
// once stall is set, passing nothing more (a server that went silent).
type slowLink struct {
	addr  string
	ln    net.Listener
	chunk int
	gap   time.Duration

	mu    sync.Mutex
	stall bool
	conns []net.Conn
	wg    sync.WaitGroup
}

func newSlowLink(t *testing.T, to string, chunk int, gap time.Duration) *slowLink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &slowLink{addr: ln.Addr().String(), ln: ln, chunk: chunk, gap: gap}
	l.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				_ = c.Close()
				continue
			}
			l.mu.Lock()
			l.conns = append(l.conns, c, s)
			l.mu.Unlock()
			l.wg.Go(func() { _, _ = io.Copy(s, c) })
			l.wg.Go(func() { l.trickle(c, s) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		l.mu.Lock()
		for _, c := range l.conns {
			_ = c.Close()
		}
		l.mu.Unlock()
		l.wg.Wait()
	})
	return l
}

// trickle passes the server's bytes to the client chunk by chunk.
func (l *slowLink) trickle(client, server net.Conn) {
	buf := make([]byte, l.chunk)
	for {
		n, err := server.Read(buf)
		l.mu.Lock()
		stalled := l.stall
		l.mu.Unlock()
		if stalled {
			_, _ = io.Copy(io.Discard, server) // until the test closes the link
			return
		}
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
		time.Sleep(l.gap)
	}
}

func (l *slowLink) setStall() {
	l.mu.Lock()
	l.stall = true
	l.mu.Unlock()
}

// fillScope writes n rows of about size bytes to scope's hash.
func fillScope(t *testing.T, srv *redistest.Server, scope string, n, size int) {
	t.Helper()
	rc := redisClient(t, srv)
	pipe := rc.Pipeline()
	for i := range n {
		pipe.HSet(context.Background(), stateKeyPrefix+scope, fmt.Sprintf("k%05d", i), fmt.Sprintf(`{"body":%q}`, strings.Repeat("x", size)))
	}
	if _, err := pipe.Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A listing whose reply takes longer than a call's bound to arrive, but
// whose bytes keep coming, is read to its end: a large scope's load
// (100,000 skills of 4 KiB, 400 MB) used to fail at the bound every time
// and a worker never finished loading. A Redis that goes silent in the
// middle of a reply still fails the call, naming the server.
func TestRedisListingOutlastsTheCallBoundWhileBytesFlow(t *testing.T) {
	const timeout, silence = 200 * time.Millisecond, time.Second
	srv := redistest.NewServer(t, redistest.Options{})
	fillScope(t, srv, "big", 256, 4096) // about 1 MiB, in chunks of at most 32 KiB 40 ms apart: over a second
	link := newSlowLink(t, srv.Addr, 32<<10, 40*time.Millisecond)
	st, err := openRedisStateWithin("redis://"+link.addr, timeout, silence)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()

	start := time.Now()
	values, err := st.values("big")
	if err != nil {
		t.Fatalf("a listing of 1 MiB arriving over %s with a silence bound of %s: %v", time.Since(start).Round(time.Millisecond), silence, err)
	}
	if len(values) != 256 {
		t.Fatalf("listed %d values, want 256", len(values))
	}
	if took := time.Since(start); took <= silence {
		t.Fatalf("the listing took %s, within the bound of %s: the link did not slow it, so the test proves nothing", took, silence)
	}
	keys, _, err := st.rows("big")
	if err != nil || len(keys) != 256 {
		t.Fatalf("rows: %d keys, %v", len(keys), err)
	}

	link.setStall()
	done := make(chan error, 1)
	go func() { _, err := st.values("big"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "redis://"+link.addr) {
			t.Fatalf("a listing from a Redis gone silent = %v, want an error naming redis://%s", err, link.addr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a listing from a Redis gone silent never returned")
	}
}
