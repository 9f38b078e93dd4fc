package iii

import (
	"testing"
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
