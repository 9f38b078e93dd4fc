package iii

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// TestClose checks that Close fails pending calls, cancels handlers,
// waits for every goroutine and leaves the client closed.
func TestClose(t *testing.T) {
	p := callPeer(t)
	c, _ := newClient(t, p)
	started := make(chan struct{})
	handlerErr := make(chan error, 1)
	c.RegisterFunction(Function{ID: "wait", Handler: func(ctx context.Context, _ Request) (any, error) {
		close(started)
		<-ctx.Done()
		handlerErr <- ctx.Err()
		return nil, ctx.Err()
	}})
	startReady(t, c)
	pc := p.waitConn(1)
	pc.send(wire.InvokeFunction{InvocationID: invocationID(1), FunctionID: "wait", Data: json.RawMessage(`{}`)})
	<-started
	pending := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "silent", nil)
		pending <- err
	}()
	sentInvoke(p, "silent")

	if clientGoroutines() == "" {
		t.Fatal("the goroutine detector sees nothing of a running client")
	}
	select {
	case <-c.Done():
		t.Fatal("Done() closed while running")
	default:
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	<-c.Done()
	if err := <-pending; !errors.Is(err, ErrClosed) {
		t.Errorf("pending call err = %v, want ErrClosed", err)
	}
	assertNoClientGoroutines(t) // polls: a goroutine lingers briefly after its Done
	select {
	case err := <-handlerErr:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx ended with %v", err)
		}
	default:
		t.Error("Close returned before the handler ended")
	}
	p.waitEnded(pc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.WaitReady(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("WaitReady after Close = %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	c.Start() // no effect after Close: it must not start a supervisor
	if stacks := clientGoroutines(); stacks != "" {
		t.Errorf("Start on a closed client started goroutines:\n%s", stacks)
	}
	if n := p.connCount(); n != 1 {
		t.Errorf("%d connections after Start on a closed client", n)
	}
}

func TestCloseBeforeStart(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown after Close: %v", err)
	}
}

func TestWaitReadyContext(t *testing.T) {
	p := newPeer(t)
	p.noGreet = true
	c, _ := newClient(t, p)
	c.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := c.WaitReady(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitReady without workerregistered = %v, want DeadlineExceeded", err)
	}
}

// TestShutdownDrains checks the graceful path: functions are unregistered,
// late invocations are refused, in-flight handlers finish and are answered.
func TestShutdownDrains(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	started, release := make(chan struct{}), make(chan struct{})
	c.RegisterFunction(Function{ID: "slow", Handler: func(context.Context, Request) (any, error) {
		close(started)
		<-release
		return "done", nil
	}})
	c.RegisterFunction(Function{ID: "other", Handler: nopHandler})
	startReady(t, c)
	pc := p.waitConn(1)
	pc.send(wire.InvokeFunction{InvocationID: invocationID(1), FunctionID: "slow", Data: json.RawMessage(`{}`)})
	<-started

	done := make(chan error, 1)
	go func() { done <- c.Shutdown(context.Background()) }()
	p.waitFrame("unregister other", func(r received) bool { return r.msg == wire.UnregisterFunction{ID: "other"} })
	p.waitFrame("unregister slow", func(r received) bool { return r.msg == wire.UnregisterFunction{ID: "slow"} })

	pc.send(wire.InvokeFunction{InvocationID: invocationID(2), FunctionID: "other", Data: json.RawMessage(`{}`), Traceparent: "tp"})
	refused := p.waitFrame("refusal", resultFor(invocationID(2))).msg
	want := wire.InvocationResult{InvocationID: invocationID(2), FunctionID: "other", Traceparent: "tp",
		Error: &wire.ErrorBody{Code: "unavailable", Message: "worker is shutting down"}}
	if diff := cmp.Diff(wire.Message(want), refused); diff != "" {
		t.Errorf("late invocation (-want +got):\n%s", diff)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v while a handler was running", err)
	default:
	}

	close(release)
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	p.waitEnded(pc)
	answered := p.waitFrame("in-flight result", resultFor(invocationID(1))).msg
	if diff := cmp.Diff(wire.Message(wire.InvocationResult{InvocationID: invocationID(1), FunctionID: "slow",
		Result: json.RawMessage(`"done"`)}), answered); diff != "" {
		t.Errorf("in-flight result (-want +got):\n%s", diff)
	}
}

// TestShutdownDeadline: handlers still running when ctx ends are cancelled
// and Shutdown reports the ctx error.
func TestShutdownDeadline(t *testing.T) {
	p := newPeer(t)
	c, _ := newClient(t, p)
	started := make(chan struct{})
	c.RegisterFunction(Function{ID: "stuck", Handler: func(ctx context.Context, _ Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	startReady(t, c)
	p.waitConn(1).send(wire.InvokeFunction{InvocationID: invocationID(1), FunctionID: "stuck", Data: json.RawMessage(`{}`)})
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := c.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want DeadlineExceeded", err)
	}
	assertNoClientGoroutines(t)
}
