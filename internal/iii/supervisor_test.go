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
