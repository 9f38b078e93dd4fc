package iii

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

func nopHandler(context.Context, Request) (any, error) { return nil, nil }

func metadataInvoke(name, description string) wire.InvokeFunction {
	desc := ""
	if description != "" {
		desc = fmt.Sprintf(`,"description":%q`, description)
	}
	return wire.InvokeFunction{
		FunctionID: "engine::workers::register",
		Data: json.RawMessage(fmt.Sprintf(`{"name":%q,"runtime":"go","version":"1.2.3","os":"%s %s","pid":%d%s}`,
			name, runtime.GOOS, runtime.GOARCH, os.Getpid(), desc)),
		Action: &wire.Action{Type: wire.ActionVoid},
	}
}

// TestHandshakeOrder checks docs/decisions.md D12 on the first connection and on a
// reconnect: reattach (reconnect only, with the previous id and token),
// the metadata call, trigger types, functions, triggers, each sorted.
func TestHandshakeOrder(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	c.RegisterFunction(Function{ID: "f::2", Description: "two", Handler: nopHandler})
	c.RegisterFunction(Function{ID: "f::1", Handler: nopHandler, RequestFormat: json.RawMessage(`{"type":"object"}`)})
	c.ProvideTriggerType(TriggerType{ID: "t::b", Description: "type b"})
	c.ProvideTriggerType(TriggerType{ID: "t::a", Description: ""})
	c.RegisterTrigger(Trigger{ID: "tr::1", Type: "t::a", FunctionID: "f::1", Metadata: map[string]int{"m": 1}})

	body := []wire.Message{
		metadataInvoke("test-worker", "a worker under test"),
		wire.RegisterTriggerType{ID: "t::a"},
		wire.RegisterTriggerType{ID: "t::b", Description: "type b"},
		wire.RegisterFunction{ID: "f::1", RequestFormat: json.RawMessage(`{"type":"object"}`)},
		wire.RegisterFunction{ID: "f::2", Description: "two"},
		wire.RegisterTrigger{ID: "tr::1", TriggerType: "t::a", FunctionID: "f::1",
			Config: json.RawMessage(`{}`), Metadata: json.RawMessage(`{"m":1}`)},
	}

	startReady(t, c)
	p.waitFrame("first handshake", isType(1, wire.TypeRegisterTrigger))
	if diff := cmp.Diff(body, p.framesOn(1)); diff != "" {
		t.Errorf("first connection (-want +got):\n%s", diff)
	}
	if got := c.WorkerID(); got != workerID(1) {
		t.Errorf("WorkerID() = %q, want %q", got, workerID(1))
	}

	p.dropAll()
	p.waitFrame("second handshake", isType(2, wire.TypeRegisterTrigger))
	want := append([]wire.Message{wire.Reattach{PreviousWorkerID: workerID(1), ReattachToken: token(1)}}, body...)
	if diff := cmp.Diff(want, p.framesOn(2)); diff != "" {
		t.Errorf("reconnection (-want +got):\n%s", diff)
	}
	waitState(t, c, "second worker id", func() bool { return c.WorkerID() == workerID(2) })

	p.dropAll()
	reattach := p.waitFrame("third handshake", isType(3, wire.TypeReattach))
	if diff := cmp.Diff(wire.Reattach{PreviousWorkerID: workerID(2), ReattachToken: token(2)}, reattach.msg); diff != "" {
		t.Errorf("reattach on the third connection names the second (-want +got):\n%s", diff)
	}
}

// TestReplayRegistrations checks that the registrations replayed on a
// reconnect are the ones held at that moment: later additions included,
// replacements applied, removals gone.
func TestReplayRegistrations(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	c.RegisterFunction(Function{ID: "f::gone", Handler: nopHandler})
	c.RegisterTrigger(Trigger{ID: "tr::gone", Type: "t", FunctionID: "f::gone"})
	startReady(t, c)

	c.RegisterFunction(Function{ID: "f::new", Description: "old text", Handler: nopHandler})
	c.RegisterFunction(Function{ID: "f::new", Description: "new text", Handler: nopHandler})
	c.UnregisterFunction("f::gone")
	c.UnregisterTrigger("tr::gone")
	c.UnregisterTrigger("tr::never-registered")
	c.RegisterTrigger(Trigger{ID: "tr::new", Type: "t", FunctionID: "f::new", Config: map[string]string{"k": "<v>"}})
	p.waitFrame("live registrations", func(r received) bool {
		m, ok := r.msg.(wire.RegisterTrigger)
		return ok && m.ID == "tr::new"
	})
	live := []wire.Message{
		wire.RegisterFunction{ID: "f::new", Description: "old text"},
		wire.RegisterFunction{ID: "f::new", Description: "new text"},
		wire.UnregisterFunction{ID: "f::gone"},
		wire.UnregisterTrigger{ID: "tr::gone", TriggerType: "t"},
		wire.RegisterTrigger{ID: "tr::new", TriggerType: "t", FunctionID: "f::new", Config: json.RawMessage(`{"k":"<v>"}`)},
	}
	if diff := cmp.Diff(live, p.framesOn(1)[3:]); diff != "" {
		t.Errorf("frames sent while connected (-want +got):\n%s", diff)
	}

	p.dropAll()
	p.waitFrame("replay", isType(2, wire.TypeRegisterTrigger))
	want := []wire.Message{
		wire.Reattach{PreviousWorkerID: workerID(1), ReattachToken: token(1)},
		metadataInvoke("test-worker", "a worker under test"),
		wire.RegisterFunction{ID: "f::new", Description: "new text"},
		wire.RegisterTrigger{ID: "tr::new", TriggerType: "t", FunctionID: "f::new", Config: json.RawMessage(`{"k":"<v>"}`)},
	}
	if diff := cmp.Diff(want, p.framesOn(2)); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
}

// TestMetadataDefaults checks the worker name fallbacks and that an empty
// description is omitted.
func TestMetadataDefaults(t *testing.T) {
	host, _ := os.Hostname()
	tests := []struct {
		name, env, want string
	}{
		{name: "III_WORKER_NAME wins", env: "skills", want: "skills"},
		{name: "hostname:pid", env: "", want: fmt.Sprintf("%s:%d", host, os.Getpid())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("III_WORKER_NAME", tt.env)
			p := newPeer(t)
			c, _ := newClient(t, p, func(o *Options) { o.Name, o.Description = "", "" })
			startReady(t, c)
			got := p.waitFrame("metadata", isType(1, wire.TypeInvokeFunction))
			if diff := cmp.Diff(metadataInvoke(tt.want, ""), got.msg); diff != "" {
				t.Errorf("metadata call (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBackoffResetsAfterHandshake reads the reconnect delays from the
// logs and the dial times: they double while connections fail and start
// over after a connection the engine greeted. It runs on a fake clock
// against an in-memory engine, so the times are exact.
func TestBackoffResetsAfterHandshake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPipePeer(t)
		p.noGreet = true
		c, logs := pipeClient(t, p, func(o *Options) {
			o.ReconnectInitial, o.ReconnectMax = 5*time.Millisecond, 20*time.Millisecond
			o.HandshakeTimeout = 100 * time.Millisecond
		})
		start := time.Now()
		c.Start()
		p.waitConn(4)
		p.mu.Lock()
		p.noGreet = false
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
		n := p.connCount()
		p.dropAll()
		p.waitConn(n + 1)
		lost := waitLog(t, logs, "disconnected from engine")

		var failed []time.Duration
		for _, e := range logs.FilterMessage("engine connection failed").All()[:3] {
			failed = append(failed, e.ContextMap()["retry_in"].(time.Duration))
			if err, _ := e.ContextMap()["error"].(string); !strings.Contains(err, "no workerregistered within 100ms") {
				t.Errorf("failed attempt logged %q, want the handshake timeout", err)
			}
		}
		if diff := cmp.Diff([]time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, failed); diff != "" {
			t.Errorf("delays after failed handshakes (-want +got):\n%s", diff)
		}
		fields := lost.ContextMap()
		if fields["retry_in"] != 5*time.Millisecond || fields["worker_id"] != workerID(n) {
			t.Errorf("disconnect logged %v, want retry_in 5ms and worker_id %s", fields, workerID(n))
		}
		// Four connections time out (the fourth was accepted before the
		// engine began to greet), each 100 ms after it opened; the fifth
		// is greeted and dropped at once; the sixth follows 5 ms later.
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		want := []time.Duration{0, ms(105), ms(215), ms(335), ms(455), ms(460)}
		if diff := cmp.Diff(want, p.pipes.dials(start)); diff != "" {
			t.Errorf("dial times (-want +got):\n%s", diff)
		}
	})
}
