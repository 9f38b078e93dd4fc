package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

var (
	reconcileSkills = flag.Int("reconcile-skills", 10_000, "skills of 4 KiB BenchmarkReconcileIdle seeds")
	reconcileEvery  = flag.Duration("reconcile-every", time.Second, "reconcile_ms the worker runs with in BenchmarkReconcileIdle")
	reconcileWindow = flag.Duration("reconcile-window", 20*time.Second, "how long BenchmarkReconcileIdle measures the idle worker")
)

// BenchmarkReconcileIdle measures what the reconcile (docs/decisions.md
// D73) costs an idle deployment: a scope of -reconcile-skills skills of
// 4 KiB, the real worker binary reconciling every -reconcile-every, and
// no write at all for -reconcile-window (and at least three passes). It
// reports, per pass, the bytes
// the pass listed, how long it took, the worker's CPU (from /proc) and
// the engine's (this process: the in-process local engine answering the
// listings), and both scaled to a minute at the default reconcile_ms
// (5000, or the pass time × 10 when that is longer). Run it with
// -benchtime 1x:
//
//	go test -run '^$' -bench ReconcileIdle -benchtime 1x ./bench/ -reconcile-skills 100000
func BenchmarkReconcileIdle(b *testing.B) {
	var f reconcileFigures
	for range b.N {
		f = reconcileIdle(b, *reconcileSkills, *reconcileEvery, *reconcileWindow)
	}
	perMinute := float64(time.Minute) / float64(max(5*time.Second, 10*f.took))
	b.ReportMetric(float64(f.passes), "passes")
	b.ReportMetric(float64(f.bytes)/1e6, "MB-listed/pass")
	b.ReportMetric(ms(f.took), "ms/pass")
	b.ReportMetric(ms(f.workerCPU), "ms-worker-cpu/pass")
	b.ReportMetric(ms(f.engineCPU), "ms-engine-cpu/pass")
	b.ReportMetric(ms(f.workerCPU)*perMinute/1e3, "s-worker-cpu/min@default")
	b.ReportMetric(ms(f.engineCPU)*perMinute/1e3, "s-engine-cpu/min@default")
	b.ReportMetric(float64(f.bytes)*perMinute/1e6, "MB-listed/min@default")
	b.ReportMetric(f.rss/1e6, "MB-rss")
	b.ReportMetric(f.peak/1e6, "MB-peak")
	b.ReportMetric(f.rss/f.stored, "rss/bodies")
	b.ReportMetric(0, "ns/op")
}

// reconcileFigures are one idle window's per-pass averages.
type reconcileFigures struct {
	passes               uint64
	bytes                int64
	took                 time.Duration
	workerCPU, engineCPU time.Duration
	rss, peak, stored    float64 // the worker's VmRSS and VmHWM after the window, the bodies' bytes
}

func reconcileIdle(tb testing.TB, n int, every, window time.Duration) reconcileFigures {
	tb.Helper()
	srv := iiitest.NewServerWith(tb, engine.Options{})
	body := skillBody(4096)
	seed(tb, srv, n, body)
	bin := buildWorker(tb)
	cfg := filepath.Join(tb.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "state_timeout_ms: 600000\nreconcile_ms: %d\n", every.Milliseconds()), 0o644); err != nil {
		tb.Fatal(err)
	}
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "bench-caller", CallTimeout: 10 * time.Minute})
	caller.Start()
	tb.Cleanup(func() { caller.Close() })
	p := startWorker(tb, bin, "", nil, "--url", srv.URL(), "--config", cfg)
	p.waitLine(tb, 10*time.Minute, "catalog loaded", `"scope": "skills"`)
	first := freshnessOf(tb, caller)
	for first.Reconciles < 1 {
		time.Sleep(every / 4) // a bench waiting for the first pass; nothing is decided by it
		first = freshnessOf(tb, caller)
	}
	worker0, engine0 := procCPU(tb, p.cmd.Process.Pid), selfCPU(tb)
	time.Sleep(window)
	last := freshnessOf(tb, caller)
	for last.Reconciles-first.Reconciles < 3 {
		// Passes slower than a tenth of the interval are spaced by ten
		// times their length (D73): measure over three at least.
		time.Sleep(every / 4)
		last = freshnessOf(tb, caller)
	}
	worker1, engine1 := procCPU(tb, p.cmd.Process.Pid), selfCPU(tb)
	passes := last.Reconciles - first.Reconciles
	if last.ChangesByReconcile != 0 {
		tb.Errorf("an idle scope's reconcile found %d changes, want none", last.ChangesByReconcile)
	}
	rss, peak := procMemory(tb, p.cmd.Process.Pid)
	return reconcileFigures{
		rss: rss, peak: peak, stored: float64(n * len(body)),
		passes:    passes,
		bytes:     last.ReconcileBytes,
		took:      time.Duration(last.ReconcileTookMS) * time.Millisecond,
		workerCPU: (worker1 - worker0) / time.Duration(passes),
		engineCPU: (engine1 - engine0) / time.Duration(passes),
	}
}

// freshness is catalog.freshness of skills::diagnostics.
type freshness struct {
	Reconciles         uint64 `json:"reconciles"`
	ReconcileBytes     int64  `json:"reconcile_bytes"`
	ReconcileTookMS    int64  `json:"reconcile_took_ms"`
	ChangesByReconcile uint64 `json:"changes_by_reconcile"`
	Signal             string `json:"signal"` // D75
}

func freshnessOf(tb testing.TB, caller *iii.Client) freshness {
	tb.Helper()
	out, err := caller.Call(context.Background(), "skills::diagnostics", map[string]any{})
	if err != nil {
		tb.Fatal(err)
	}
	var rep struct {
		Catalog struct {
			Freshness *freshness `json:"freshness"`
		} `json:"catalog"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Catalog.Freshness == nil {
		tb.Fatalf("skills::diagnostics without catalog.freshness: %v %.300s", err, out)
	}
	return *rep.Catalog.Freshness
}

// procCPU is the CPU time process pid has used, user and system, from
// /proc/<pid>/stat (in clock ticks of 10 ms).
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after its closing parenthesis (utime and stime are fields 14
	// and 15 of the line, 12 and 13 after it).
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func selfCPU(tb testing.TB) time.Duration {
	tb.Helper()
	d, ok := processCPU()
	if !ok {
		tb.Skip("no process CPU time on this platform")
	}
	return d
}
