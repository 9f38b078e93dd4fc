package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Each side's engine::workers::register call lands: engine::workers::list,
// called from Go and from Node, shows the Node worker with runtime "node"
// and the Go worker with runtime "go", each with its name, version, os and
// pid.
func TestWorkerMetadata(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	gw := newGoWorker(t, srv, "go-meta")
	gw.register("go::meta", gw.record(nil, nil))
	gw.start(srv, "go::meta")
	node := startPeer(t, srv, "node-meta", peerOptions{description: "Node side of the interop tests"})
	node.registerFunction("node::meta-a", "record", nil)
	node.registerFunction("node::meta-b", "record", nil)
	node.waitConnected(srv)
	waitFunctions(t, srv, "node::meta-a", "node::meta-b")

	want := map[string]workerRow{
		"node-meta": {ID: node.workerID(srv), Name: ptr("node-meta"), Description: ptr("Node side of the interop tests"),
			Runtime: ptr("node"), Version: ptr(sdkVersion), Status: "connected", FunctionCount: 2,
			OS: ptr(fmt.Sprintf("%s %s (%s)", node.ready.Platform, node.ready.Release, node.ready.Arch))},
		"go-meta": {ID: gw.c.WorkerID(), Name: ptr("go-meta"), Description: ptr("Go side of the interop tests"),
			Runtime: ptr("go"), Version: ptr("0.0.0-interop"), Status: "connected", FunctionCount: 1,
			OS: ptr(runtime.GOOS + " " + runtime.GOARCH)},
	}
	check := func(from string, rows []workerRow) {
		t.Helper()
		for name, w := range want {
			i := slices.IndexFunc(rows, func(r workerRow) bool { return r.Name != nil && *r.Name == name })
			if i < 0 {
				t.Errorf("engine::workers::list called from %s has no worker %q: %+v", from, name, rows)
				continue
			}
			got := rows[i]
			got.ActiveInvocations = 0 // Node's own list call may be in flight
			if g, w := rowString(got), rowString(w); g != w {
				t.Errorf("engine::workers::list called from %s: worker %q is\n  %s\nwant\n  %s", from, name, g, w)
			}
		}
	}
	check("Go", gw.listWorkers())

	r := node.call("engine::workers::list", map[string]any{"runtime": "node"}, 5*time.Second)
	if !r.OK {
		t.Fatalf("Node call of engine::workers::list: %+v", *r.Error)
	}
	var fromNode struct {
		Workers []workerRow `json:"workers"`
	}
	if err := jsonUnmarshal(r.Result, &fromNode); err != nil {
		t.Fatal(err)
	}
	if len(fromNode.Workers) != 1 {
		t.Errorf("engine::workers::list {runtime:node} returned %d workers, want the Node peer only", len(fromNode.Workers))
	}
	delete(want, "go-meta")
	check("Node", fromNode.Workers)

	if _, tap := node.frames(); tap.Opened != 0 {
		t.Errorf("a peer with OpenTelemetry off opened /otel %d times", tap.Opened)
	}

	// The engine's own view: the pids are the processes'.
	for _, w := range srv.Workers() {
		switch w.Name {
		case "node-meta":
			if int(w.PID) != node.ready.PID || int(w.PID) != node.cmd.Process.Pid {
				t.Errorf("Node worker pid %d, want %d", w.PID, node.cmd.Process.Pid)
			}
		case "go-meta":
			if int(w.PID) != os.Getpid() {
				t.Errorf("Go worker pid %d, want %d", w.PID, os.Getpid())
			}
		}
	}
}

// With OpenTelemetry left on, the Node SDK opens <url>/otel next to its
// worker socket and streams binary telemetry frames; the engine accepts
// that socket, keeps it out of the worker registry, and the worker keeps
// working.
func TestNodeTelemetrySocket(t *testing.T) {
	t.Parallel()
	srv := newEngine(t)
	gw := newGoWorker(t, srv, "go-otel")
	gw.register("go::echo", gw.echo())
	gw.start(srv, "go::echo")
	tap := newFrameTap(t, srv.URL())
	node := startPeer(t, srv, "node-otel", peerOptions{otel: true, url: tap.url()})
	node.registerFunction("node::echo", "echo", nil)
	node.waitConnected(srv)
	waitFunctions(t, srv, "node::echo")

	// Calls in both directions make spans and logs to export.
	checkBothWays(t, gw, node, "with telemetry")
	// The peer reaches the engine through the relay, which sees the
	// telemetry frames pass; the peer counts a frame before it sends it.
	tap.await("telemetry frame on /otel", func(f tapFrame) bool { return f.Up && f.Binary && f.Path == "/otel" })
	connected := "[OTel] Connected to engine at " + tap.url() + "/otel"
	waitUntil(t, waitTimeout, "the SDK's connected line", func() error {
		if !strings.Contains(node.stderr.String(), connected) {
			return fmt.Errorf("the SDK never logged %q", connected)
		}
		return nil
	})
	_, otel := node.frames()
	if otel.Opened != 1 || otel.BinaryOut == 0 {
		t.Errorf("the SDK opened /otel %d times and sent %d telemetry frames, want 1 and some", otel.Opened, otel.BinaryOut)
	}
	for prefix := range otel.Prefixes {
		if prefix != "OTLP" && prefix != "MTRC" && prefix != "LOGS" {
			t.Errorf("telemetry frame with prefix %q, want OTLP, MTRC or LOGS", prefix)
		}
	}
	if n := len(srv.Workers()); n != 2 {
		t.Errorf("engine lists %d connections, want 2 (the telemetry socket is not a worker): %+v", n, srv.Workers())
	}
	if strings.Contains(node.stderr.String(), "[OTel] Disconnected") {
		t.Errorf("the engine dropped the telemetry socket")
	}
	checkBothWays(t, gw, node, "after telemetry")
}

// rowString renders a worker row for comparison and messages.
func rowString(r workerRow) string {
	b, _ := json.Marshal(r)
	return string(b)
}
