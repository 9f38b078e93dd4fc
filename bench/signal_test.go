package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/redistest"
)

var (
	signalSkills = flag.Int("signal-skills", 10_000, "skills of 4 KiB BenchmarkSignalConvergence seeds in Redis")
	signalWrites = flag.Int("signal-writes", 200, "registrations BenchmarkSignalConvergence times, alternately through each engine")
)

// BenchmarkSignalConvergence measures the cross-engine signal (docs/
// decisions.md D75): one real redis-server, two local engines (in this
// process) keeping state and pubsub in it, -signal-skills skills of 4 KiB
// seeded there, and the real worker binary on each engine with the
// reconcile off (reconcile_ms 0: only the signal carries a write across).
// -signal-writes registrations of 4 KiB, one after another, alternately
// through each engine; for each, the time from the call's answer until
// the other engine's skills::on-change subscriber hears it. Sub-benchmark
// "none" runs the same registrations on engines without pubsub (no
// convergence: the reconcile is off) for the register's own time, so the
// two medians give what the signal costs a registration; in both, each
// registration starts once the last was heard (by the other engine's
// subscriber with the signal, by its own engine's without) and 20 ms
// passed. Run it with
// -benchtime 1x:
//
//	go test -run '^$' -bench SignalConvergence -benchtime 1x ./bench/
func BenchmarkSignalConvergence(b *testing.B) {
	for _, mode := range []string{"pubsub", "none"} {
		b.Run(mode, func(b *testing.B) {
			var f signalFigures
			for range b.N {
				f = signalConvergence(b, mode == "pubsub", *signalSkills, *signalWrites)
			}
			b.ReportMetric(ms(median(f.register)), "ms-register-p50")
			if mode == "pubsub" {
				b.ReportMetric(ms(f.heard[len(f.heard)/2]), "ms-heard-p50")
				b.ReportMetric(ms(f.heard[len(f.heard)*99/100]), "ms-heard-p99")
				b.ReportMetric(ms(f.heard[len(f.heard)-1]), "ms-heard-max")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// signalFigures are one run's times, each sorted.
type signalFigures struct {
	register []time.Duration // each registration's call
	heard    []time.Duration // from a call's answer to the other engine's subscriber hearing it
}

// signalSide is one engine, its worker process and a caller that records
// when its worker announced each registration.
type signalSide struct {
	caller *iii.Client
	mu     sync.Mutex
	heard  map[string]time.Time
	wake   chan struct{} // capacity 1: something was heard
}

func (s *signalSide) heardAt(id string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.heard[id]
	return at, ok
}

func signalConvergence(tb testing.TB, signal bool, n, writes int) signalFigures {
	tb.Helper()
	redis := redistest.NewServer(tb, redistest.Options{})
	opts := engine.Options{StateURL: redis.URL, StateWindow: 64}
	if signal {
		opts.PubSub = redis.URL
	}
	bin := buildWorker(tb)
	cfg := filepath.Join(tb.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("state_timeout_ms: 600000\nreconcile_ms: 0\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	body := skillBody(4096)
	var sides [2]*signalSide
	for i := range sides {
		srv := iiitest.NewServerWith(tb, opts)
		if i == 0 {
			seed(tb, srv, n, body) // into Redis: both engines hold it
		}
		p := startWorker(tb, bin, "", nil, "--url", srv.URL(), "--config", cfg)
		p.waitLine(tb, 10*time.Minute, "catalog loaded", `"scope": "skills"`)
		s := &signalSide{heard: map[string]time.Time{}, wake: make(chan struct{}, 1)}
		s.caller = iii.New(iii.Options{URL: srv.URL(), Name: fmt.Sprintf("bench-caller-%d", i), CallTimeout: 10 * time.Minute})
		s.caller.RegisterFunction(iii.Function{ID: "bench::heard", Handler: func(_ context.Context, req iii.Request) (any, error) {
			var v struct{ Op, ID string }
			_ = json.Unmarshal(req.Data, &v)
			s.mu.Lock()
			if _, seen := s.heard[v.ID]; !seen && v.Op == "register" {
				s.heard[v.ID] = time.Now()
			}
			s.mu.Unlock()
			select {
			case s.wake <- struct{}{}:
			default:
			}
			return nil, nil
		}})
		s.caller.RegisterTrigger(iii.Trigger{ID: fmt.Sprintf("bench-heard-%d", i), Type: "skills::on-change", FunctionID: "bench::heard"})
		s.caller.Start()
		tb.Cleanup(func() { s.caller.Close() })
		if err := srv.WaitBinding(context.Background(), fmt.Sprintf("bench-heard-%d", i)); err != nil {
			tb.Fatal(err)
		}
		if signal {
			waitSignalOn(tb, s.caller)
		}
		sides[i] = s
	}
	var f signalFigures
	for w := range writes {
		via, other := sides[w%2], sides[1-w%2]
		id := fmt.Sprintf("signal/s%05d", w)
		start := time.Now()
		if _, err := via.caller.Call(context.Background(), "skills::register", map[string]string{"id": id, "skill": body}); err != nil {
			tb.Fatal(err)
		}
		answered := time.Now()
		f.register = append(f.register, answered.Sub(start))
		if signal {
			f.heard = append(f.heard, max(waitHeard(tb, other, id).Sub(answered), 0))
		} else {
			waitHeard(tb, via, id)
		}
		// Both modes paced alike: the next registration starts on a
		// quiet pair, not on the tail of this one's work.
		time.Sleep(signalPace)
	}
	slices.Sort(f.register)
	slices.Sort(f.heard)
	return f
}

// signalPace is the quiet between two registrations of
// BenchmarkSignalConvergence.
const signalPace = 20 * time.Millisecond

// waitHeard waits until s's subscriber has heard id registered, and
// returns when it did.
func waitHeard(tb testing.TB, s *signalSide, id string) time.Time {
	tb.Helper()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for {
		if at, ok := s.heardAt(id); ok {
			return at
		}
		select {
		case <-s.wake:
		case <-deadline.C:
			tb.Fatalf("the subscriber did not hear %s within a minute", id)
		}
	}
}

// waitSignalOn waits until the worker behind caller reports the signal
// (catalog.freshness.signal "pubsub").
func waitSignalOn(tb testing.TB, caller *iii.Client) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for freshnessOf(tb, caller).Signal != "pubsub" {
		if time.Now().After(deadline) {
			tb.Fatal("the worker never reported signal pubsub")
		}
		time.Sleep(20 * time.Millisecond) // polling diagnostics: what they say decides
	}
}
