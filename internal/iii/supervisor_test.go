package iii

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBackoffDelay(t *testing.T) {
	b := backoff{initial: time.Second, max: 30 * time.Second, jitter: 0.3}
	tests := []struct {
		attempt int
		rnd     float64
		want    time.Duration
	}{
		{attempt: 0, rnd: 0.5, want: time.Second},
		{attempt: 0, rnd: 0, want: 700 * time.Millisecond},
		{attempt: 0, rnd: 0.75, want: 1150 * time.Millisecond},
		{attempt: 1, rnd: 0.5, want: 2 * time.Second},
		{attempt: 4, rnd: 0.5, want: 16 * time.Second},
		{attempt: 5, rnd: 0.5, want: 30 * time.Second},
		{attempt: 5, rnd: 0, want: 21 * time.Second},
		{attempt: 1000, rnd: 0.5, want: 30 * time.Second},
	}
	for _, tt := range tests {
		if got := b.delay(tt.attempt, func() float64 { return tt.rnd }); got != tt.want {
			t.Errorf("delay(%d) with rnd %v = %v, want %v", tt.attempt, tt.rnd, got, tt.want)
		}
	}

	for n := range 64 {
		base := min(time.Second<<min(n, 10), 30*time.Second)
		for _, r := range []float64{0, 0.1, 0.5, 0.9, 0.999999} {
			got := b.delay(n, func() float64 { return r })
			lo, hi := time.Duration(float64(base)*0.7), time.Duration(float64(base)*1.3)
			if got < lo || got > hi {
				t.Errorf("delay(%d) with rnd %v = %v, outside [%v, %v]", n, r, got, lo, hi)
			}
		}
	}

	noJitter := backoff{initial: 5 * time.Millisecond, max: 20 * time.Millisecond, jitter: -1}
	var got []time.Duration
	for n := range 5 {
		got = append(got, noJitter.delay(n, func() float64 { panic("rnd used without jitter") }))
	}
	want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays without jitter (-want +got):\n%s", diff)
	}
}

// With the default policy a worker is back within 2 s of the engine after
// an outage of any length (docs/decisions.md D28): 100 ms doubling to a
// 1.5 s cap, ±25 %, so no wait between attempts exceeds 1.875 s.
func TestDefaultBackoffIsBackWithinTwoSeconds(t *testing.T) {
	b := backoff{initial: DefaultReconnectInitial, max: DefaultReconnectMax, jitter: DefaultReconnectJitter}
	var mid []time.Duration
	for n := range 7 {
		mid = append(mid, b.delay(n, func() float64 { return 0.5 }))
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond}
	if diff := cmp.Diff(want, mid); diff != "" {
		t.Errorf("delays without jitter's offset (-want +got):\n%s", diff)
	}
	for n := range 1000 {
		for _, r := range []float64{0, 0.5, 0.999999} {
			if d := b.delay(n, func() float64 { return r }); d > 1875*time.Millisecond || d < 75*time.Millisecond {
				t.Fatalf("delay(%d) with rnd %v = %v, outside [75ms, 1.875s]", n, r, d)
			}
		}
	}
}

// The reconnect schedule as the supervisor keeps it, on a fake clock
// against an in-memory engine (pipe peer): with the default policy and
// jitter off, attempts while the engine is down are 100 ms, 200 ms,
// 400 ms, 800 ms, then 1.5 s apart (docs/decisions.md D28); a connection
// the engine never greeted does not reset the schedule, one it greeted
// does, so the first attempt after losing it comes 100 ms later.
func TestReconnectDelaysDoubleToTheCapAndResetAfterAGreeting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPipePeer(t)
		p.pipes.setRefuse(true)
		c, logs := pipeClient(t, p, func(o *Options) { o.HandshakeTimeout = time.Second })
		start := time.Now()
		c.Start()
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		down := []time.Duration{0, ms(100), ms(300), ms(700), ms(1500), ms(3000), ms(4500)}

		time.Sleep(5 * time.Second)
		synctest.Wait()
		if diff := cmp.Diff(down, p.pipes.dials(start)); diff != "" {
			t.Fatalf("dials while the engine is down (-want +got):\n%s", diff)
		}

		// The engine comes back but does not greet: the 6 s attempt
		// connects, times out after the 1 s handshake timeout, and the
		// next waits the capped 1.5 s.
		p.mu.Lock()
		p.noGreet = true
		p.mu.Unlock()
		p.pipes.setRefuse(false)
		time.Sleep(3 * time.Second) // to 8 s
		p.mu.Lock()
		p.noGreet = false
		p.mu.Unlock()
		time.Sleep(time.Second) // to 9 s
		synctest.Wait()
		if got := c.WorkerID(); got != workerID(2) {
			t.Fatalf("worker id %q at 9 s, want %q (the second connection, greeted)", got, workerID(2))
		}
		p.dropAll() // at 9 s
		time.Sleep(time.Second)
		synctest.Wait()
		want := append(down, ms(6000), ms(8500), ms(9100))
		if diff := cmp.Diff(want, p.pipes.dials(start)); diff != "" {
			t.Errorf("dials (-want +got):\n%s", diff)
		}
		if got := c.WorkerID(); got != workerID(3) {
			t.Errorf("worker id %q after the reconnect, want %q", got, workerID(3))
		}

		var retry []time.Duration
		for _, e := range logs.All() {
			if d, ok := e.ContextMap()["retry_in"].(time.Duration); ok {
				retry = append(retry, d)
			}
		}
		wantRetry := []time.Duration{ms(100), ms(200), ms(400), ms(800), ms(1500), ms(1500), ms(1500), ms(1500), ms(100)}
		if diff := cmp.Diff(wantRetry, retry); diff != "" {
			t.Errorf("retry_in logged (-want +got):\n%s", diff)
		}
		timedOut := logs.FilterMessage("engine connection failed").All()[7]
		if err, _ := timedOut.ContextMap()["error"].(string); !strings.Contains(err, "no workerregistered within 1s") {
			t.Errorf("the ungreeted connection's failure logged %q, want the handshake timeout", err)
		}
	})
}

// Against a peer that accepts and never answers, WaitFirstAttempt ends
// with its ctx and names the step that waited, and Close abandons the
// upgrade at once instead of holding out for the handshake timeout.
func TestCloseAbandonsAStalledUpgrade(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var peers []net.Conn
		c := New(Options{URL: "ws://engine.test:49134", HandshakeTimeout: 10 * time.Second,
			netDial: func(ctx context.Context, network, addr string) (net.Conn, error) {
				client, peer := net.Pipe()
				peers = append(peers, peer) // never read, never written
				return client, nil
			}})
		c.Start()
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		err := c.WaitFirstAttempt(ctx)
		pending, ok := errors.AsType[*PendingAttemptError](err)
		if !ok || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(pending.Stage, "the TCP connection to engine.test:49134 opened, but the WebSocket upgrade got no answer") {
			t.Errorf("WaitFirstAttempt = %v, want a PendingAttemptError naming the upgrade", err)
		}
		c.Close()
		if took := time.Since(start); took >= 10*time.Second {
			t.Errorf("Close returned %s after the start: it waited out the handshake timeout", took)
		}
		for _, p := range peers {
			p.Close()
		}
	})
}
