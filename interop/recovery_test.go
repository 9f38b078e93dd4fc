package interop

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Both sides come back after the engine drops every connection, and after
// an engine restart on the same port: a Node→Go and a Go→Node call succeed
// again, each side on a new worker id, and the trigger bindings in both
// directions are delivered to their providers again and fire. The Node SDK
// keeps its default reconnect schedule (1 s ± 30 %, doubling).
func TestRecovery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		drop func(t *testing.T, srv *engine.Engine)
	}{
		{"connections dropped", func(_ *testing.T, srv *engine.Engine) { srv.DropConnections() }},
		{"engine restarted", func(t *testing.T, srv *engine.Engine) {
			if err := srv.Restart(); err != nil {
				t.Fatalf("Restart: %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newEngine(t)
			gw := newGoWorker(t, srv, "go-recovering")
			gw.register("go::echo", gw.echo())
			gw.register("go::on-node-event", gw.record(nil, nil))
			var hooks hookLog
			provider := gw.c.ProvideTriggerType(iii.TriggerType{ID: "go::changes", Description: "Go changes",
				OnRegister: func(_ context.Context, s iii.Subscription) error { hooks.add("register", s); return nil }})
			gw.c.RegisterTrigger(iii.Trigger{ID: "go-sub", Type: "node::events", FunctionID: "go::on-node-event"})
			gw.start(srv, "go::echo", "go::on-node-event")
			node := startPeer(t, srv, "node-recovering", peerOptions{})
			node.registerFunction("node::echo", "echo", nil)
			node.registerFunction("node::on-change", "record", nil)
			node.do("provide_trigger_type", "trigger_type_registered", map[string]any{"id": "node::events", "description": "Node events"})
			node.do("register_trigger", "trigger_registered", map[string]any{"type": "go::changes",
				"function_id": "node::on-change", "config": map[string]any{}})
			node.waitConnected(srv)
			waitFunctions(t, srv, "node::echo", "node::on-change")
			nodeTriggerID := waitSubscribers(t, srv, gw, "go::echo", provider, "go::changes", 1)[0].ID
			node.awaitEvent("provider_register", "")
			checkBothWays(t, gw, node, "before")
			checkTriggersBothWays(t, gw, provider, node, "before")
			oldIDs := []string{gw.c.WorkerID(), node.workerID(srv)}

			tc.drop(t, srv)

			waitUntil(t, recoverTimeout, "Node→Go call after the drop", func() error {
				r := node.call("go::echo", map[string]any{"after": "drop"}, time.Second)
				if !r.OK {
					return fmt.Errorf("Node call failed: %+v", *r.Error)
				}
				return nil
			})
			waitUntil(t, recoverTimeout, "Go→Node call after the drop", func() error {
				_, err := gw.call("node::echo", map[string]any{"after": "drop"})
				return err
			})
			checkBothWays(t, gw, node, "after")

			// Each side replays its binding; the engine hands it to the
			// provider's new connection. Node keeps its trigger id.
			waitUntil(t, recoverTimeout, "Node's binding back at the Go provider", func() error {
				if got := hooks.ids("register"); !slices.Equal(got, []string{nodeTriggerID, nodeTriggerID}) {
					return fmt.Errorf("OnRegister saw %v, want %s twice", got, nodeTriggerID)
				}
				return nil
			})
			var again nodeTriggerConfig
			node.awaitEvent("provider_register", "").decode(t, &again)
			if again.ID != "go-sub" {
				t.Errorf("Node provider got binding %q after the drop, want go-sub", again.ID)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			if err := srv.WaitBinding(ctx, "go-sub"); err != nil {
				t.Fatal(err)
			}
			checkTriggersBothWays(t, gw, provider, node, "after")

			newIDs := []string{gw.c.WorkerID(), node.workerID(srv)}
			for i, id := range newIDs {
				if slices.Contains(oldIDs, id) {
					t.Errorf("worker %d kept its id %s across the drop; the engine must assign a fresh one", i, id)
				}
			}
			if n := len(srv.Workers()); n != 2 {
				t.Errorf("engine lists %d connections after recovery, want 2: %+v", n, srv.Workers())
			}
		})
	}
}

// checkTriggersBothWays fires once from each provider and checks the
// other side's function got the payload.
func checkTriggersBothWays(t *testing.T, gw *goWorker, provider *iii.Provider, node *nodePeer, phase string) {
	t.Helper()
	payload := map[string]any{"phase": phase}
	if n := provider.Fire(context.Background(), payload); n != 1 {
		t.Fatalf("%s: Go provider fired %d subscribers, want 1", phase, n)
	}
	jsonEqual(t, phase+": Go-fired payload at Node", withoutCaller(t, node.awaitInvoked("node::on-change").Data), payload)

	before := gw.callCount("go::on-node-event")
	var fired struct {
		Count int `json:"count"`
	}
	node.do("fire", "fired", map[string]any{"trigger_type": "node::events", "payload": payload}).decode(t, &fired)
	if fired.Count != 1 {
		t.Fatalf("%s: Node provider fired %d subscribers, want 1", phase, fired.Count)
	}
	jsonEqual(t, phase+": Node-fired payload at Go", withoutCaller(t, gw.awaitCall("go::on-node-event", before).Data), payload)
}

// checkBothWays makes one call in each direction and checks the payload
// came back.
func checkBothWays(t *testing.T, gw *goWorker, node *nodePeer, phase string) {
	t.Helper()
	r := node.call("go::echo", map[string]any{"phase": phase}, 5*time.Second)
	if !r.OK {
		t.Fatalf("%s: Node→Go call failed: %+v", phase, *r.Error)
	}
	jsonEqual(t, phase+": Node→Go result", withoutCaller(t, r.Result), map[string]any{"phase": phase})
	res, err := gw.call("node::echo", map[string]any{"phase": phase})
	if err != nil {
		t.Fatalf("%s: Go→Node call failed: %v", phase, err)
	}
	var got struct {
		Data map[string]any `json:"data"`
	}
	if err := jsonUnmarshal(res, &got); err != nil {
		t.Fatal(err)
	}
	if got.Data["phase"] != phase {
		t.Errorf("%s: Go→Node result %s, want the payload back", phase, res)
	}
}

// A caller waiting on a callee that goes away gets invocation_stopped,
// whichever side the callee is on.
func TestCalleeDisconnect(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)

	t.Run("node callee", func(t *testing.T) {
		gw := newGoWorker(t, srv, "go-waiting")
		gw.start(srv)
		node := startPeer(t, srv, "node-leaving", peerOptions{})
		node.registerFunction("node::hang", "hang", nil)
		node.waitConnected(srv)
		waitFunctions(t, srv, "node::hang")

		errc := make(chan error, 1)
		go func() {
			_, err := gw.call("node::hang", map[string]any{})
			errc <- err
		}()
		node.awaitInvoked("node::hang")
		node.do("shutdown", "shut_down", nil)
		ie := asIIIError(t, <-errc)
		if ie.Code != "invocation_stopped" || ie.Message != "Invocation stopped" {
			t.Errorf("Go caller got %q / %q, want invocation_stopped / Invocation stopped", ie.Code, ie.Message)
		}
	})

	t.Run("go callee", func(t *testing.T) {
		gw := newGoWorker(t, srv, "go-leaving")
		// The handler outlives its connection: were it to answer as soon
		// as Close cancels its ctx, that answer could still be flushed and
		// beat the disconnect.
		release := make(chan struct{})
		releaseOnce := sync.OnceFunc(func() { close(release) })
		t.Cleanup(releaseOnce)
		entered := make(chan struct{}, 1)
		gw.register("go::hang", func(ctx context.Context, _ iii.Request) (any, error) {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-ctx.Done()
			<-release
			return nil, ctx.Err()
		})
		gw.start(srv, "go::hang")
		node := startPeer(t, srv, "node-waiting", peerOptions{})
		node.waitConnected(srv)

		ref := node.send("call", map[string]any{"function_id": "go::hang", "payload": map[string]any{}, "timeout_ms": 5000})
		select {
		case <-entered:
		case <-time.After(waitTimeout):
			t.Fatalf("go::hang was not called within %v", waitTimeout)
		}
		// The engine recorded the call before Go could see it.
		inFlight := false
		for _, w := range gw.listWorkers() {
			if w.Name != nil && *w.Name == "go-leaving" && w.ActiveInvocations == 1 {
				inFlight = true
			}
		}
		if !inFlight {
			t.Fatalf("go::hang is not in flight at the engine: %+v", gw.listWorkers())
		}
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			_ = gw.c.Close()
		}()
		var r nodeResult
		node.awaitEvent("result", ref).decode(t, &r)
		releaseOnce()
		<-closed
		want := nodeError{Name: "InvocationError", Code: "invocation_stopped",
			Message: "invocation_stopped: Invocation stopped", FunctionID: "go::hang"}
		if r.OK || *r.Error != want {
			t.Errorf("Node caller got %+v, want error %+v", r, want)
		}
	})
}
