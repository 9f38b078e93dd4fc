package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// BenchmarkFetchStorm is issue 27's fetch storm against the worker binary
// under the local engine: 50 callers at once fetch 16 MB each (a skill of
// 250,000 bytes named 64 times, within max_response_bytes), and the worker's resident memory is
// read from /proc before, at its highest during, and 5 s and 30 s after
// the storm (docs/decisions.md D64). $STORM_BIN runs another build of the
// worker (an older commit's, to compare); $STORM_IN_FLIGHT sets
// max_bytes_in_flight (0: no bound). Linux only (it reads /proc).
func BenchmarkFetchStorm(b *testing.B) {
	bin := os.Getenv("STORM_BIN")
	if bin == "" {
		bin = buildWorker(b)
	}
	cfg := b.TempDir() + "/config.yaml"
	conf := "skills: []\n"
	if v := os.Getenv("STORM_IN_FLIGHT"); v != "" {
		conf += "max_bytes_in_flight: " + v + "\n"
	}
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := engine.Start(ctx, "127.0.0.1:0", engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	p := startWorker(b, bin, b.TempDir(), inheritedEnv("III_URL="+srv.URL()), "--config", cfg)
	defer p.stop()
	p.waitLine(b, time.Minute, "skills ready")
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "storm-caller", CallTimeout: 2 * time.Minute})
	caller.Start()
	defer caller.Close()
	if err := caller.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	body := "# Big\n\n" + strings.Repeat("All work and no play makes a dull skill.\n", 250_000/41)
	uris := make([]string, 64)
	for i := range uris {
		uris[i] = "iii://big"
	}
	if _, err := caller.Call(ctx, "skills::register", map[string]string{"id": "big", "skill": body}); err != nil {
		b.Fatal(err)
	}
	pid := p.cmd.Process.Pid
	settle := func() { time.Sleep(2 * time.Second) } // lets the worker's own work after the write end; measures, not a test
	settle()
	before := rssOf(b, pid)

	var peak atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			peak.Store(max(peak.Load(), rssOf(b, pid)))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	const callers = 50
	var failed atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			if _, err := caller.Call(ctx, "skill::fetch", map[string]any{"uris": uris}); err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	close(stop)
	sampler.Wait()
	time.Sleep(5 * time.Second)
	after5 := rssOf(b, pid)
	time.Sleep(25 * time.Second)
	after30 := rssOf(b, pid)
	b.ReportMetric(float64(before)/(1<<20), "MiB-before")
	b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-peak")
	b.ReportMetric(float64(after5)/(1<<20), "MiB-after-5s")
	b.ReportMetric(float64(after30)/(1<<20), "MiB-after-30s")
	b.ReportMetric(float64(failed.Load()), "failed")
	b.ReportMetric(took.Seconds(), "s-storm")
	if e := firstErr.Load(); e != nil {
		b.Logf("first failure: %s", e)
	}
}

// rssOf is the resident memory of process pid, in bytes (VmRSS).
func rssOf(tb testing.TB, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
