package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// BenchmarkReplicaVisibility measures D23: how long after another worker
// writes a skill row to the scope (state::set through the engine) the
// worker's catalog serves it: the write's round trip, the engine's state
// event to the worker, and the worker's re-read of the key. Against it, in
// the same run, the round trip of a call to a no-op echo on the worker.
// Reported: the p50 and p99 of both, in µs, and p99 visibility over p50
// echo (target: p99 ≤ 50 ms on loopback).
//
//	go test -run '^$' -bench ReplicaVisibility -benchtime 2000x ./bench/
func BenchmarkReplicaVisibility(b *testing.B) {
	echo := iii.NewFunction("bench::echo", "returns nothing", func(context.Context, echoIn) (string, error) { return "", nil })
	r := newRig(b, rigOptions{extra: []iii.Function{echo}})
	ctx := context.Background()
	visible := make([]time.Duration, 0, b.N)
	echoes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		r.call(b, "bench::echo", map[string]any{})
		echoes = append(echoes, time.Since(start))

		body := fmt.Sprintf("# Replica\n\nWrite %d.", i)
		row, _ := json.Marshal(map[string]string{"id": "replica/doc", "skill": body, "registered_at": "2026-11-23T00:00:00.000000000+00:00"})
		start = time.Now()
		if _, err := r.caller.Call(ctx, "state::set", map[string]any{"scope": "skills", "key": "replica/doc", "value": json.RawMessage(row)}); err != nil {
			b.Fatal(err)
		}
		deadline := time.NewTimer(10 * time.Second)
		for {
			changed := r.skills.Changed()
			if e, found, _ := r.skills.Get("replica/doc"); found && e.Body == body {
				break
			}
			select {
			case <-changed:
			case <-deadline.C:
				b.Fatalf("write %d never reached the catalog", i)
			}
		}
		deadline.Stop()
		visible = append(visible, time.Since(start))
	}
	b.StopTimer()
	pct := func(d []time.Duration, p float64) time.Duration {
		slices.Sort(d)
		return d[min(len(d)-1, int(float64(len(d))*p))]
	}
	b.ReportMetric(float64(pct(echoes, 0.5).Microseconds()), "µs-echo-p50")
	b.ReportMetric(float64(pct(echoes, 0.99).Microseconds()), "µs-echo-p99")
	b.ReportMetric(float64(pct(visible, 0.5).Microseconds()), "µs-visible-p50")
	b.ReportMetric(float64(pct(visible, 0.99).Microseconds()), "µs-visible-p99")
	b.ReportMetric(float64(pct(visible, 0.99))/float64(pct(echoes, 0.5)), "p99-visible/echo")
	b.ReportMetric(0, "ns/op")
}
