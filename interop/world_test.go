// Package interop checks the Go client (internal/iii) and the local engine
// (internal/iii/iiitest) against the official Node client, iii-sdk 0.22.1,
// over real loopback WebSockets: each test starts an engine, a Go client
// and one or more peer.mjs processes and drives them together.
//
// The Node side needs `make interop-deps` (or `cd interop && npm ci`).
package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// waitTimeout bounds every single wait; tests normally finish far sooner.
// recoverTimeout bounds a reconnect: the Node SDK waits 1 s ± 30 % before
// its first attempt and doubles the delay after each failed one.
const (
	waitTimeout    = 15 * time.Second
	recoverTimeout = 20 * time.Second
	goCallTimeout  = 5 * time.Second
)

// newEngine starts a local engine on a free loopback port; its log is
// shown when the test fails. It is closed in t.Cleanup.
func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	return iiitest.NewServerWith(t, engine.Options{Logger: testLogger(t, "engine")})
}

// testLogger returns a logger that keeps info and above in memory and
// prints it in t.Cleanup if the test failed. Register it before whatever
// logs to it, so its cleanup runs last.
func testLogger(t *testing.T, name string) *zap.Logger {
	buf := &syncBuffer{}
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s log:\n%s", name, buf.tail(64<<10))
		}
	})
	core := zapcore.NewCore(enc, zapcore.AddSync(buf), zapcore.InfoLevel)
	return zap.New(zapcore.NewTee(core, pulseCore{})).Named(name)
}

// changes is bumped by every log entry of an engine or Go client (debug
// included), every write of a Node peer's stderr and every provider hook
// call: the events that come with the changes waitUntil waits for. It is
// shared by the tests running in parallel; a bump from another test only
// makes a wait check once more.
var changes = struct {
	mu sync.Mutex
	ch chan struct{} // closed and replaced by bump
}{ch: make(chan struct{})}

func bump() {
	changes.mu.Lock()
	defer changes.mu.Unlock()
	close(changes.ch)
	changes.ch = make(chan struct{})
}

// nextChange returns a channel closed at the next bump.
func nextChange() <-chan struct{} {
	changes.mu.Lock()
	defer changes.mu.Unlock()
	return changes.ch
}

// pulseCore is a zap core that writes nothing and bumps changes for every
// entry, at every level.
type pulseCore struct{}

func (pulseCore) Enabled(zapcore.Level) bool          { return true }
func (c pulseCore) With([]zapcore.Field) zapcore.Core { return c }
func (pulseCore) Sync() error                         { return nil }
func (pulseCore) Write(zapcore.Entry, []zapcore.Field) error {
	bump()
	return nil
}
func (c pulseCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	return ce.AddCore(e, c)
}

// goWorker is the Go side of a test: a client plus what its handlers saw.
type goWorker struct {
	t    *testing.T
	name string
	c    *iii.Client

	mu      sync.Mutex
	calls   []iii.Request // every invocation of a recording function, in order
	changed chan struct{}
}

// newGoWorker creates (not starts) a Go client of srv with fast
// reconnects; it is closed in t.Cleanup.
func newGoWorker(t *testing.T, srv *engine.Engine, name string) *goWorker {
	t.Helper()
	return newGoWorkerAt(t, srv.URL(), name)
}

// newGoWorkerAt is newGoWorker for an engine reached at url.
func newGoWorkerAt(t *testing.T, url, name string) *goWorker {
	t.Helper()
	w := &goWorker{t: t, name: name, changed: make(chan struct{})}
	w.c = iii.New(iii.Options{
		URL:              url,
		Name:             name,
		Description:      "Go side of the interop tests",
		Version:          "0.0.0-interop",
		Logger:           testLogger(t, name),
		CallTimeout:      goCallTimeout,
		ReconnectInitial: 50 * time.Millisecond,
		ReconnectMax:     500 * time.Millisecond,
	})
	t.Cleanup(func() { _ = w.c.Close() })
	return w
}

// start connects the client and waits until the engine knows every
// function it registered.
func (w *goWorker) start(srv *engine.Engine, functionIDs ...string) {
	w.t.Helper()
	w.c.Start()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := w.c.WaitReady(ctx); err != nil {
		w.t.Fatalf("Go client never connected: %v", err)
	}
	if err := srv.WaitWorker(ctx, w.name); err != nil {
		w.t.Fatalf("Go client's metadata never landed: %v", err)
	}
	for _, id := range functionIDs {
		if err := srv.WaitFunction(ctx, id); err != nil {
			w.t.Fatalf("Go function never registered: %v", err)
		}
	}
}

// record returns a handler that keeps each request and answers with
// result and err.
func (w *goWorker) record(result any, err error) iii.Handler {
	return func(_ context.Context, req iii.Request) (any, error) {
		w.mu.Lock()
		w.calls = append(w.calls, req)
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
		return result, err
	}
}

// echo is a handler that answers with the payload it received.
func (w *goWorker) echo() iii.Handler {
	rec := w.record(nil, nil)
	return func(ctx context.Context, req iii.Request) (any, error) {
		_, _ = rec(ctx, req)
		return req.Data, nil
	}
}

// register adds a function served by h.
func (w *goWorker) register(id string, h iii.Handler) {
	w.c.RegisterFunction(iii.Function{ID: id, Description: "interop " + id, Handler: h})
}

// awaitCall returns the next recorded call of functionID after the first
// `after` ones.
func (w *goWorker) awaitCall(functionID string, after int) iii.Request {
	w.t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		n := 0
		for _, r := range w.calls {
			if r.FunctionID != functionID {
				continue
			}
			if n == after {
				w.mu.Unlock()
				return r
			}
			n++
		}
		changed := w.changed
		w.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			w.t.Fatalf("Go function %s was not called (call #%d) within %v", functionID, after+1, waitTimeout)
		}
	}
}

// callCount is how many recorded calls functionID has received.
func (w *goWorker) callCount(functionID string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, r := range w.calls {
		if r.FunctionID == functionID {
			n++
		}
	}
	return n
}

// call makes a synchronous call from Go.
func (w *goWorker) call(functionID string, data any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), goCallTimeout)
	defer cancel()
	return w.c.Call(ctx, functionID, data)
}

// workerRow is one entry of engine::workers::list.
type workerRow struct {
	ID                string  `json:"id"`
	Name              *string `json:"name"`
	Description       *string `json:"description"`
	Runtime           *string `json:"runtime"`
	Version           *string `json:"version"`
	OS                *string `json:"os"`
	Status            string  `json:"status"`
	FunctionCount     int     `json:"function_count"`
	ActiveInvocations int     `json:"active_invocations"`
}

// listWorkers calls engine::workers::list from Go.
func (w *goWorker) listWorkers() []workerRow {
	w.t.Helper()
	raw, err := w.call("engine::workers::list", map[string]any{})
	if err != nil {
		w.t.Fatalf("engine::workers::list: %v", err)
	}
	var out struct {
		Workers []workerRow `json:"workers"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		w.t.Fatalf("engine::workers::list result %s: %v", raw, err)
	}
	return out.Workers
}

// assertIdle fails unless no worker has an invocation in flight. The
// list is computed when the engine handles this call, after every frame
// this client sent before it.
func (w *goWorker) assertIdle() {
	w.t.Helper()
	for _, r := range w.listWorkers() {
		if r.ActiveInvocations != 0 {
			w.t.Errorf("worker %s has %d invocations in flight, want none", r.ID, r.ActiveInvocations)
		}
	}
}

// waitUntil checks check again at every change (see changes) until it
// returns nil, and fails the test with its last error after timeout. A
// check must be a condition that one of those changes makes true, or a
// call whose failure is retried once something changed.
func waitUntil(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		next := nextChange()
		err := check()
		if err == nil {
			return
		}
		select {
		case <-next:
		case <-deadline.C:
			t.Fatalf("%s: not reached within %v: %v", what, timeout, err)
		}
	}
}

// asIIIError returns err as *iii.Error or fails the test.
func asIIIError(t *testing.T, err error) *iii.Error {
	t.Helper()
	var ie *iii.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *iii.Error", err, err)
	}
	return ie
}

// jsonEqual fails unless got and want encode the same JSON value.
func jsonEqual(t *testing.T, what string, got json.RawMessage, want any) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %s is not JSON: %v", what, got, err)
	}
	wb, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("%s: encode want: %v", what, err)
	}
	if err := json.Unmarshal(wb, &w); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, truncate(diff, 4096))
	}
}

// truncate shortens s to n bytes for a readable failure message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes more)", len(s)-n)
}

// waitFunctions waits until the engine knows every id.
func waitFunctions(t *testing.T, srv *engine.Engine, ids ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, id := range ids {
		if err := srv.WaitFunction(ctx, id); err != nil {
			t.Fatalf("function never registered: %v", err)
		}
	}
}

// jsonUnmarshal is json.Unmarshal with the input in the error.
func jsonUnmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", truncate(string(b), 512), err)
	}
	return nil
}

// callerKey is the key the engine adds to object payloads of calls made
// by a worker.
const callerKey = "_caller_worker_id"

// splitCaller returns an object payload without the engine's callerKey,
// and that key's value ("" when absent).
func splitCaller(t *testing.T, data json.RawMessage) (json.RawMessage, string) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatalf("payload %s is not an object: %v", truncate(string(data), 512), err)
	}
	var caller string
	if raw, ok := obj[callerKey]; ok {
		if err := json.Unmarshal(raw, &caller); err != nil {
			t.Fatalf("%s is %s, want a string", callerKey, raw)
		}
		delete(obj, callerKey)
	}
	rest, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return rest, caller
}

// withoutCaller is splitCaller's payload.
func withoutCaller(t *testing.T, data json.RawMessage) json.RawMessage {
	t.Helper()
	rest, _ := splitCaller(t, data)
	return rest
}
