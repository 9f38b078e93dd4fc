package interop

import (
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// A worker whose connection the engine never saw end (a network
// partition) comes back through reattach: on its new connection it
// presents the old worker id and reattach token, and the engine retires
// the old, still open connection instead of keeping a ghost beside it.
func TestReattachAfterPartition(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	proxy := newPartitionProxy(t, srv.URL())
	gw := newGoWorkerAt(t, proxy.url(), "go-partitioned")
	gw.register("go::echo", gw.echo())
	gw.start(srv, "go::echo")
	node := startPeer(t, srv, "node-partitioned", peerOptions{url: proxy.url()})
	node.registerFunction("node::echo", "echo", nil)
	node.waitConnected(srv)
	waitFunctions(t, srv, "node::echo")
	checkBothWays(t, gw, node, "before")
	oldGo, oldNode := gw.c.WorkerID(), node.workerID(srv)

	proxy.partition()

	waitUntil(t, recoverTimeout, "both workers reattached", func() error {
		var ids []string
		for _, w := range srv.Workers() {
			ids = append(ids, w.ID)
		}
		switch {
		case slices.Contains(ids, oldGo) || slices.Contains(ids, oldNode):
			return fmt.Errorf("the engine still holds a partitioned connection: %v (old %s, %s)", ids, oldGo, oldNode)
		case len(ids) != 2:
			return fmt.Errorf("the engine holds %d connections, want the 2 new ones: %v", len(ids), ids)
		}
		return nil
	})
	waitUntil(t, recoverTimeout, "Node→Go call after the partition", func() error {
		if r := node.call("go::echo", map[string]any{"after": "partition"}, time.Second); !r.OK {
			return fmt.Errorf("Node call failed: %+v", *r.Error)
		}
		return nil
	})
	checkBothWays(t, gw, node, "after")

	frames, _ := node.frames()
	i := slices.IndexFunc(frames, func(f wireFrame) bool { return f.Dir == "out" && f.Type == "reattach" })
	if i < 0 {
		t.Fatal("the Node SDK sent no reattach frame on its new connection")
	}
	if f := frames[i]; f.PreviousWorkerID != oldNode || f.ReattachToken == "" {
		t.Errorf("Node's reattach named %q with token %q, want %q and its token", f.PreviousWorkerID, f.ReattachToken, oldNode)
	}
}

// partitionProxy forwards TCP connections to the engine. partition cuts
// every current connection on the worker's side only: the worker sees its
// socket close, while the engine's side stays open and silent.
type partitionProxy struct {
	ln     net.Listener
	target string // host:port
	wg     sync.WaitGroup

	mu    sync.Mutex
	pairs []*proxyPair
}

type proxyPair struct {
	worker, engine net.Conn
	cut            bool // guarded by partitionProxy.mu
}

// newPartitionProxy listens on a free loopback port; it is closed in
// t.Cleanup.
func newPartitionProxy(t *testing.T, engineURL string) *partitionProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &partitionProxy{ln: ln, target: engineURL[len("ws://"):]}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *partitionProxy) url() string { return "ws://" + p.ln.Addr().String() }

func (p *partitionProxy) accept() {
	defer p.wg.Done()
	for {
		w, err := p.ln.Accept()
		if err != nil {
			return
		}
		e, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = w.Close()
			continue
		}
		pair := &proxyPair{worker: w, engine: e}
		p.mu.Lock()
		p.pairs = append(p.pairs, pair)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(pair, e, w, true)
		go p.pipe(pair, w, e, false)
	}
}

// pipe copies src to dst. When the worker side ends, the engine side is
// closed too, unless the pair was cut by a partition.
func (p *partitionProxy) pipe(pair *proxyPair, dst, src net.Conn, toEngine bool) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	p.mu.Lock()
	cut := pair.cut
	p.mu.Unlock()
	if toEngine && cut {
		return
	}
	_ = dst.Close()
}

// partition cuts every current connection on the worker side.
func (p *partitionProxy) partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pair := range p.pairs {
		pair.cut = true
		_ = pair.worker.Close()
	}
}

func (p *partitionProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, pair := range p.pairs {
		_ = pair.worker.Close()
		_ = pair.engine.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
