package iii

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

func TestJSONPingAnswered(t *testing.T) {
	for _, kind := range []int{websocket.TextMessage, websocket.BinaryMessage} {
		t.Run(map[int]string{websocket.TextMessage: "text", websocket.BinaryMessage: "binary"}[kind], func(t *testing.T) {
			p := newPeer(t)
			c, _ := newClient(t, p)
			startReady(t, c)
			p.waitConn(1).sendRaw(kind, []byte(`{"type":"ping"}`))
			p.waitFrame("pong", isType(1, wire.TypePong))
		})
	}
}

// TestControlPings: the client pings every PingInterval (20 s by
// default, as the official SDKs), and an engine that answers keeps the
// connection past the idle timeout. On a fake clock against an in-memory
// engine, so the ticks are exact.
func TestControlPings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPipePeer(t)
		c, logs := pipeClient(t, p)
		start := time.Now()
		startReady(t, c)
		pings := func() int {
			synctest.Wait()
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.pings
		}
		for k := 1; k <= 4; k++ { // to 80 s, beyond the 60 s idle timeout
			at := time.Duration(k) * DefaultPingInterval
			time.Sleep(at - time.Since(start) - time.Nanosecond)
			if n := pings(); n != k-1 {
				t.Fatalf("%d control pings just before %v, want %d", n, at, k-1)
			}
			time.Sleep(time.Nanosecond)
			if n := pings(); n != k {
				t.Fatalf("%d control pings at %v, want %d", n, at, k)
			}
		}
		if n := p.connCount(); n != 1 {
			t.Errorf("%d connections; answered pings must keep the first alive", n)
		}
		if lost := logs.FilterMessage("disconnected from engine").All(); len(lost) != 0 {
			t.Errorf("disconnected although the engine answered: %v", lost[0].ContextMap())
		}
	})
}

// TestSilenceReconnects: an engine that answers nothing (not even pings)
// is dropped IdleTimeout (60 s by default) after the last frame it sent,
// and a new connection is made after the first reconnect delay.
func TestSilenceReconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPipePeer(t)
		p.noPong = true
		c, logs := pipeClient(t, p)
		start := time.Now()
		startReady(t, c)
		// A frame at 30 s moves the deadline to 90 s.
		time.Sleep(30 * time.Second)
		p.waitConn(1).send(wire.Ping{})
		time.Sleep(60*time.Second - time.Nanosecond)
		synctest.Wait()
		if n := p.connCount(); n != 1 || len(logs.FilterMessage("disconnected from engine").All()) != 0 {
			t.Fatalf("%d connections just before 60 s of silence; want the first still open", n)
		}
		time.Sleep(DefaultReconnectInitial + time.Nanosecond)
		synctest.Wait()
		want := []time.Duration{0, 90*time.Second + DefaultReconnectInitial}
		if diff := cmp.Diff(want, p.pipes.dials(start)); diff != "" {
			t.Errorf("dial times (-want +got):\n%s", diff)
		}
		entry := waitLog(t, logs, "disconnected from engine")
		if err, _ := entry.ContextMap()["error"].(string); !strings.Contains(err, "engine silent for 1m0s") {
			t.Errorf("logged error %q, want the idle timeout", err)
		}
	})
}

func TestOversizedFrameReconnects(t *testing.T) {
	p := callPeer(t)
	c, logs := newClient(t, p, func(o *Options) { o.MaxFrameBytes = 1024 })
	startReady(t, c)
	big := `{"type":"ping","pad":"` + strings.Repeat("x", 2048) + `"}`
	p.waitConn(1).sendRaw(websocket.TextMessage, []byte(big))
	p.waitFrame("handshake on a new connection", isType(2, wire.TypeInvokeFunction))
	entry := waitLog(t, logs, "disconnected from engine")
	if err, _ := entry.ContextMap()["error"].(string); !strings.Contains(err, "larger than 1024 bytes") {
		t.Errorf("logged error %q, want the size limit", err)
	}
	waitState(t, c, "reconnected", func() bool { return c.WorkerID() == workerID(2) })
	if got, err := c.Call(context.Background(), "echo", json.RawMessage(`1`)); err != nil || string(got) != "1" {
		t.Errorf("call after reconnect = %s, %v", got, err)
	}
}

// TestBadInputIgnored sends frames the client must ignore and proves after
// each that the same connection still serves a call.
func TestBadInputIgnored(t *testing.T) {
	tests := []struct {
		name  string
		frame string
		log   string // part of the debug line
	}{
		{name: "malformed JSON", frame: `{"type":`, log: "decode frame"},
		{name: "not an object", frame: `[1,2]`, log: "decode frame"},
		{name: "empty", frame: ``, log: "decode frame"},
		{name: "whitespace", frame: " \n", log: "decode frame"},
		{name: "no type", frame: `{"id":"x"}`, log: `missing required field "type"`},
		{name: "unknown type", frame: `{"type":"unregistertriggertype","id":"x"}`, log: "unknown frame type"},
		{name: "invoke without data", frame: `{"type":"invokefunction","invocation_id":"00000000-0000-4000-8000-000000000001","function_id":"f"}`,
			log: `missing required field "data"`},
		{name: "invoke without function_id", frame: `{"type":"invokefunction","data":{}}`, log: `missing required field "function_id"`},
		{name: "non-UUID invocation id", frame: `{"type":"invokefunction","invocation_id":"42","function_id":"f","data":{}}`,
			log: `"invocation_id" must be a UUID, got "42"`},
		{name: "result without invocation id", frame: `{"type":"invocationresult","function_id":"f","result":1}`,
			log: `missing required field "invocation_id"`},
		{name: "result error without message", frame: `{"type":"invocationresult","invocation_id":"00000000-0000-4000-8000-000000000001","function_id":"f","error":{"code":"x"}}`,
			log: `missing required field "error.message"`},
		{name: "result for unknown invocation", frame: `{"type":"invocationresult","invocation_id":"00000000-0000-4000-8000-000000000001","function_id":"f","result":1}`,
			log: "ignored result for unknown invocation"},
		{name: "registertrigger without config", frame: `{"type":"registertrigger","id":"s","trigger_type":"t","function_id":"f"}`,
			log: `missing required field "config"`},
		{name: "wrong field type", frame: `{"type":"workerregistered","worker_id":7}`, log: `field "worker_id" must be a string`},
		{name: "frame only workers send", frame: `{"type":"registerfunction","id":"x"}`, log: "ignored frame"},
		{name: "unregistertrigger for unknown type", frame: `{"type":"unregistertrigger","id":"s","trigger_type":"t"}`,
			log: "ignored unregistertrigger"},
	}
	p := callPeer(t)
	c, logs := newClient(t, p)
	c.RegisterFunction(Function{ID: "f", Handler: func(context.Context, Request) (any, error) {
		t.Error("handler ran for a frame that must be ignored")
		return nil, nil
	}})
	startReady(t, c)
	pc := p.waitConn(1)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.TakeAll()
			pc.sendRaw(websocket.TextMessage, []byte(tt.frame))
			got, err := c.Call(context.Background(), "echo", json.RawMessage(`"ok"`))
			if err != nil || string(got) != `"ok"` {
				t.Fatalf("call after the frame = %s, %v", got, err)
			}
			var lines []string
			for _, e := range logs.All() {
				lines = append(lines, fmt.Sprint(e.Message, e.ContextMap()))
			}
			if !strings.Contains(strings.Join(lines, "\n"), tt.log) {
				t.Errorf("debug log %q, want a line containing %q", lines, tt.log)
			}
		})
	}
	if n := p.connCount(); n != 1 {
		t.Errorf("%d connections; bad input must not cost the connection", n)
	}
	for _, m := range p.framesOn(1) {
		if r, ok := m.(wire.InvocationResult); ok {
			t.Errorf("client answered an ignored frame: %#v", r)
		}
	}
}

func TestRegistrationRejected(t *testing.T) {
	t.Run("function conflict is a warning", func(t *testing.T) {
		p := callPeer(t)
		c, logs := newClient(t, p)
		startReady(t, c)
		p.waitConn(1).send(wire.RegistrationRejected{Code: wire.CodeFunctionNamespaceConflict, Namespace: "default",
			FunctionID: "skills::list", OwnerWorkerID: "w-1"})
		entry := waitLog(t, logs, "function registration rejected")
		if entry.ContextMap()["function_id"] != "skills::list" || entry.Level.String() != "warn" {
			t.Errorf("logged %s %v", entry.Level, entry.ContextMap())
		}
		if _, err := c.Call(context.Background(), "echo", nil); err != nil || c.Err() != nil {
			t.Errorf("after a function conflict: call err %v, Err() %v", err, c.Err())
		}
		select {
		case <-c.Done():
			t.Error("Done() closed after a function conflict")
		default:
		}
	})
	for _, code := range []string{wire.CodeWorkerNamespaceConflict, "SOMETHING_NEWER"} {
		t.Run(code+" is fatal", func(t *testing.T) {
			p := callPeer(t)
			c, logs := newClient(t, p)
			startReady(t, c)
			pending := make(chan error, 1)
			go func() {
				_, err := c.Call(context.Background(), "silent", nil)
				pending <- err
			}()
			sentInvoke(p, "silent")
			rej := wire.RegistrationRejected{Code: code, Namespace: "default", WorkerName: "skills", OwnerWorkerID: "w-1"}
			pc := p.waitConn(1)
			pc.send(rej)
			want := &RegistrationRejectedError{Code: code, Namespace: "default", WorkerName: "skills", OwnerWorkerID: "w-1"}

			waitClosed(t, c.Done(), "Done() to close after a fatal rejection")
			var gotErr *RegistrationRejectedError
			if err := <-pending; !asRejected(err, &gotErr) || cmp.Diff(want, gotErr) != "" {
				t.Errorf("pending call err = %v, want %v", err, want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if err := c.WaitReady(ctx); cmp.Diff(error(want), err) != "" {
				t.Errorf("WaitReady = %v, want %v", err, want)
			}
			if diff := cmp.Diff(error(want), c.Err()); diff != "" {
				t.Errorf("Err() (-want +got):\n%s", diff)
			}
			if _, err := c.Call(context.Background(), "echo", nil); !asRejected(err, &gotErr) {
				t.Errorf("call after rejection = %v, want the rejection", err)
			}
			p.waitEnded(pc)
			// The supervisor logs this as it returns instead of dialling
			// again; nothing connects after it.
			waitLog(t, logs, "engine connection closed")
			if n := p.connCount(); n != 1 {
				t.Errorf("%d connections; a fatal rejection must stop reconnecting", n)
			}
		})
	}
}

// TestReadErrorIsNotMaskedByWriterError (conn.serve): when the read side
// ends the connection, gorilla has already sent a close frame (read limit,
// protocol error, or its reply to the engine's close), so a write the
// writer goroutine attempts before serve marks the conn dead fails with
// "close sent"; that error must not hide the reader's, the real cause (it
// once did, which made TestOversizedFrameReconnects flaky). Here the
// writer is kept busy and the scenario repeats on 12 connections.
func TestReadErrorIsNotMaskedByWriterError(t *testing.T) {
	p := newPeer(t)
	c, logs := newClient(t, p, func(o *Options) { o.MaxFrameBytes = 1 << 16 })
	for i := range 500 {
		c.RegisterFunction(Function{ID: fmt.Sprintf("f%04d", i), Description: strings.Repeat("d", 1024),
			Handler: func(context.Context, Request) (any, error) { return nil, nil }})
	}
	var mu sync.Mutex
	sent := map[int]bool{}
	p.setScript(func(pc *peerConn, m wire.Message) {
		mu.Lock()
		first := !sent[pc.n]
		sent[pc.n] = true
		mu.Unlock()
		if first {
			pc.sendRaw(websocket.TextMessage, []byte(`{"type":"ping","pad":"`+strings.Repeat("x", 1<<17)+`"}`))
		}
	})

	// The busy writers are stopped before the client closes (cleanups run
	// last-registered first), whether the test passes or fails.
	busy, stop := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	t.Cleanup(func() {
		stop()
		writers.Wait()
	})
	c.Start()
	for range 8 {
		writers.Go(func() {
			for busy.Err() == nil {
				if c.InvokeVoid(Invocation{FunctionID: "busy"}) != nil {
					// Disconnected: wait for the next connection rather
					// than spin; give up once stopped or the client is.
					if c.WaitReady(busy) != nil {
						return
					}
				}
			}
		})
	}
	logs.wait(t, "12 disconnects", func() bool { return logs.FilterMessage("disconnected from engine").Len() >= 12 })
	stop()
	writers.Wait()
	for _, e := range logs.FilterMessage("disconnected from engine").All() {
		if err, _ := e.ContextMap()["error"].(string); !strings.Contains(err, "larger than 65536 bytes") {
			t.Errorf("logged error %q, want the size limit", err)
		}
	}
}

// The OnDisconnect hooks run when a connection ends and before the next
// one is ready: a component that derived state from the old connection
// stops vouching for it before any call on the new one is served.
func TestOnDisconnectRunsBeforeTheNextConnectionIsReady(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	var mu sync.Mutex
	runs := 0
	c.OnDisconnect(func() {
		mu.Lock()
		runs++
		mu.Unlock()
	})
	startReady(t, c)
	first := c.Connection()
	p.dropAll()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if _, err := c.WaitConnection(ctx, first); err != nil {
		t.Fatalf("WaitConnection: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if runs != 1 {
		t.Errorf("the hook ran %d times by the time the next connection was ready, want 1", runs)
	}
}
