package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

var (
	availSkills    = flag.Int("avail-skills", 10_000, "skills BenchmarkAvailabilityProcess registers, each linking two of the provider's functions")
	availFunctions = flag.Int("avail-functions", 1_000, "functions the provider worker of BenchmarkAvailabilityProcess serves")
	availRounds    = flag.Int("avail-rounds", 20, "times BenchmarkAvailabilityProcess's one-function worker goes and comes back")
)

// flipSkills is how many skills require the one function that comes and
// goes in each round.
const flipSkills = 10

// BenchmarkAvailabilityProcess measures skills checked against the live
// engine (docs/decisions.md D85) on the real binaries: the engine and the
// worker as processes of their own, availSkills skills registered through
// skills::register, each linking two of availFunctions functions that a
// provider worker serves, and a subscriber of skills::on-change. It times,
// from the moment a worker's connection is closed or opened, until the
// subscriber has heard every skill whose availability turned: one worker
// of one function (flipSkills skills) going and coming back, round after
// round, then the provider of all the functions. The worker's CPU time over
// each phase is reported with it, and a bench::echo round trip through the
// same engine for scale.
func BenchmarkAvailabilityProcess(b *testing.B) {
	bin := buildWorker(b)
	for range b.N {
		availabilityRounds(b, newProcessRig(b, bin, "memory"))
	}
}

// turnRecorder counts the skills::on-change events of turned availability.
type turnRecorder struct {
	mu      sync.Mutex
	counts  map[string]int // op → events
	changed chan struct{}
}

func (t *turnRecorder) handle(_ context.Context, req iii.Request) (any, error) {
	var ev struct{ Op string }
	if json.Unmarshal(req.Data, &ev) == nil && (ev.Op == "available" || ev.Op == "unavailable") {
		t.mu.Lock()
		t.counts[ev.Op]++
		close(t.changed)
		t.changed = make(chan struct{})
		t.mu.Unlock()
	}
	return nil, nil
}

// await returns once op has been heard n times more than at mark.
func (t *turnRecorder) await(tb testing.TB, op string, mark, n int, limit time.Duration) {
	tb.Helper()
	deadline := time.After(limit)
	for {
		t.mu.Lock()
		got, ch := t.counts[op]-mark, t.changed
		t.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("%d %q events within %s, want %d", got, op, limit, n)
		}
	}
}

func (t *turnRecorder) count(op string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts[op]
}

// provider connects a worker serving ids and returns once it is ready.
func provider(tb testing.TB, url, name string, ids []string) *iii.Client {
	tb.Helper()
	c := iii.New(iii.Options{URL: url, Name: name})
	for _, id := range ids {
		c.RegisterFunction(iii.Function{ID: id, Description: "bench: a function skills require",
			Handler: func(context.Context, iii.Request) (any, error) { return "ok", nil }})
	}
	c.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		tb.Fatal(err)
	}
	return c
}

func availabilityRounds(b *testing.B, r *processRig) {
	n, nf := *availSkills, *availFunctions
	fn := func(i int) string { return fmt.Sprintf("acme::f%04d", i) }
	all := make([]string, nf)
	for i := range all {
		all[i] = fn(i)
	}
	big := provider(b, r.engineURL, "bench-acme", all)
	flip := provider(b, r.engineURL, "bench-flip", []string{"flip::status"})

	// Register: skill i links functions i and 7i+3 (mod nf); the first
	// flipSkills link flip::status as well.
	var next atomic.Int64
	errs := make(chan error, *processCallers)
	var wg sync.WaitGroup
	for range *processCallers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				body := fmt.Sprintf("# Skill %d\n\nRead [the status](iii://fn/acme/f%04d) and [the ledger](iii://fn/acme/f%04d).\n", i, i%nf, (7*i+3)%nf)
				if i < flipSkills {
					body += "Then [the flip](iii://fn/flip/status).\n"
				}
				id := fmt.Sprintf("team-%03d/skill-%05d", i%100, i)
				if _, err := r.caller.Call(context.Background(), "skills::register", map[string]string{"id": id, "skill": body}); err != nil {
					errs <- fmt.Errorf("register %s: %w", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := errors.Join(collect(errs)...); err != nil {
		b.Fatal(err)
	}

	rec := &turnRecorder{counts: map[string]int{}, changed: make(chan struct{})}
	sub := iii.New(iii.Options{URL: r.engineURL, Name: "bench-turns"})
	sub.RegisterFunction(iii.Function{ID: "bench::turns", Description: "counts availability turns", Handler: rec.handle})
	sub.RegisterTrigger(iii.Trigger{ID: "bench-turns", Type: "skills::on-change", FunctionID: "bench::turns"})
	sub.Start()
	b.Cleanup(func() { sub.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := sub.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	// The subscription is in place once a turn is heard: the flip worker
	// goes until its skills are heard unavailable, then comes back.
	flip.Close()
	rec.await(b, "unavailable", 0, flipSkills, 30*time.Second)
	flip = provider(b, r.engineURL, "bench-flip", []string{"flip::status"})
	rec.await(b, "available", 0, flipSkills, 30*time.Second)

	echo := make([]time.Duration, 200)
	for i := range echo {
		start := time.Now()
		if _, err := r.caller.Call(ctx, "bench::echo", map[string]string{"x": "y"}); err != nil {
			b.Fatal(err)
		}
		echo[i] = time.Since(start)
	}

	pid := r.worker.cmd.Process.Pid
	var gone, back []time.Duration
	// With -process-profiles, a CPU profile of each process over the
	// rounds (about 2 s at 20 rounds).
	profiled := r.profileCPU(b, "availability-rounds", 2)
	cpu0 := procCPU(b, pid)
	for range *availRounds {
		mark := rec.count("unavailable")
		start := time.Now()
		flip.Close()
		rec.await(b, "unavailable", mark, flipSkills, 30*time.Second)
		gone = append(gone, time.Since(start))
		mark = rec.count("available")
		start = time.Now()
		flip = provider(b, r.engineURL, "bench-flip", []string{"flip::status"})
		rec.await(b, "available", mark, flipSkills, 30*time.Second)
		back = append(back, time.Since(start))
	}
	flipCPU := (procCPU(b, pid) - cpu0) / time.Duration(2**availRounds)
	flip.Close()
	profiled()

	cpu0 = procCPU(b, pid)
	mark := rec.count("unavailable")
	start := time.Now()
	big.Close()
	rec.await(b, "unavailable", mark, n, 5*time.Minute)
	allGone := time.Since(start)
	mark = rec.count("available")
	start = time.Now()
	big = provider(b, r.engineURL, "bench-acme", all)
	defer big.Close()
	// The flip worker is gone: its skills stay unavailable.
	rec.await(b, "available", mark, n-flipSkills, 5*time.Minute)
	allBack := time.Since(start)
	bigCPU := procCPU(b, pid) - cpu0

	b.ReportMetric(float64(median(echo).Microseconds()), "echo-µs")
	b.ReportMetric(float64(median(gone).Milliseconds()), "one-gone-p50-ms")
	b.ReportMetric(float64(slices.Max(gone).Milliseconds()), "one-gone-max-ms")
	b.ReportMetric(float64(median(back).Milliseconds()), "one-back-p50-ms")
	b.ReportMetric(float64(slices.Max(back).Milliseconds()), "one-back-max-ms")
	b.ReportMetric(float64(flipCPU.Milliseconds()), "worker-cpu-ms/turn")
	b.ReportMetric(float64(allGone.Milliseconds()), "all-gone-ms")
	b.ReportMetric(float64(allBack.Milliseconds()), "all-back-ms")
	b.ReportMetric(float64(bigCPU.Milliseconds()), "worker-cpu-ms-all")
}
