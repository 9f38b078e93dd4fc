package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/redistest"
)

var (
	bootSkills     = flag.Int("boot-skills", 100_000, "skills BenchmarkBootLargeScope seeds")
	bootIndexReads = flag.Int("boot-index-reads", 100, "iii://skills reads BenchmarkBootLargeScope makes before reading the worker's memory")
)

// TestLargeScopeBootsAndServes is D22's promise as a test: a scope of
// 100,000 skills of 4 KiB (400 MB of bodies, a state::list six times the
// engine's usual 64 MiB frame) boots the real worker binary, which then
// answers a listing, a read, a batched fetch and the index, on the
// connection it loaded on (the index cut at the response budget). Its
// memory stays near the stored bytes (D54: bodies in the body store's
// file, the frame streamed): resident memory once serving at most 1.5×
// the bodies, and at most 2× at its peak. It holds with the engine's
// state in memory and in a redis-server (D71; issue 28). It is left out
// of the race run (where it takes minutes); make test runs it again
// without the race detector (make large-scope), so CI runs it.
func TestLargeScopeBootsAndServes(t *testing.T) {
	if raceEnabled {
		t.Skip("a 400 MB boot is too slow under the race detector; make test runs it without (make large-scope)")
	}
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			opts := engine.Options{}
			if store == "redis" {
				opts.StateURL = redistest.NewServer(t, redistest.Options{}).URL
			}
			f := bootLargeScope(t, 100_000, 2, opts)
			t.Logf("100,000 × 4 KiB, state in %s: loaded in %.1f s; RSS %.0f MB (%.2f× the bodies), peak %.0f MB (%.2f×)", store, f.boot.Seconds(), f.rss/1e6, f.rss/f.stored, f.peak/1e6, f.peak/f.stored)
			if ratio := f.rss / f.stored; ratio > 1.5 {
				t.Errorf("RSS once serving is %.0f MB, %.2f× the %.0f MB of bodies; want at most 1.5×", f.rss/1e6, ratio, f.stored/1e6)
			}
			if ratio := f.peak / f.stored; ratio > 2 {
				t.Errorf("peak RSS is %.0f MB, %.2f× the %.0f MB of bodies; want at most 2×", f.peak/1e6, ratio, f.stored/1e6)
			}
		})
	}
}

// BenchmarkBootLargeScope seeds a scope far over the engine's 64 MiB frame
// (by default 100,000 skills of 4 KiB, 400 MB of bodies), starts the real
// worker binary against it, and reports how long until the catalog has
// loaded it, the worker's resident memory once it has served a listing, a
// read and -boot-index-reads reads of iii://skills, its peak, and
// both as a ratio of the stored body bytes (docs/decisions.md D22: boots
// and serves; D54: steady RSS ≤ 1.5 × the bodies, peak ≤ 2 ×). Memory is
// read from /proc, so it is the process's, not the Go heap's. Run it with
// -benchtime 1x.
//
//	go test -run '^$' -bench BootLargeScope -benchtime 1x ./bench/
func BenchmarkBootLargeScope(b *testing.B) {
	var f bootFigures
	for range b.N {
		f = bootLargeScope(b, *bootSkills, *bootIndexReads, engine.Options{})
	}
	b.ReportMetric(f.boot.Seconds(), "s-to-load")
	b.ReportMetric(f.rss/1e6, "MB-rss")
	b.ReportMetric(f.peak/1e6, "MB-peak")
	b.ReportMetric(f.rss/f.stored, "rss/bodies")
	b.ReportMetric(f.peak/f.stored, "peak/bodies")
	b.ReportMetric(0, "ns/op")
}

// bootFigures are what one large boot measured.
type bootFigures struct {
	boot      time.Duration // start of the process until the catalog loaded the scope
	rss, peak float64       // VmRSS after the reads, VmHWM; bytes
	stored    float64       // bytes of bodies in the scope
}

// bootLargeScope seeds n skills of 4 KiB, starts the worker binary against
// them, waits for its catalog to load the scope, checks that it serves a
// listing of all n, a read, a batched fetch and indexReads renders of the
// index without reconnecting, and returns the figures. opts is the
// engine's (its state store).
func bootLargeScope(tb testing.TB, n, indexReads int, opts engine.Options) bootFigures {
	tb.Helper()
	srv := iiitest.NewServerWith(tb, opts)
	body := skillBody(4096)
	seed(tb, srv, n, body)
	f := bootFigures{stored: float64(n * len(body))}

	bin := filepath.Join(tb.TempDir(), "skills")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/skills").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := filepath.Join(tb.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("state_timeout_ms: 600000\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "bench-caller", CallTimeout: 10 * time.Minute})
	caller.Start()
	tb.Cleanup(func() { caller.Close() })

	cmd := exec.Command(bin, "--url", srv.URL(), "--config", cfg)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	loaded := make(chan time.Duration, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		scanner.Buffer(make([]byte, 64<<10), 1<<20)
		for scanner.Scan() {
			if strings.Contains(scanner.Text(), "catalog loaded") && strings.Contains(scanner.Text(), `"scope": "skills"`) {
				loaded <- time.Since(start)
			}
		}
	}()
	select {
	case f.boot = <-loaded:
	case <-time.After(10 * time.Minute):
		tb.Fatal("the catalog never loaded")
	}
	connections := workerIDs(srv, "skills")

	ctx := context.Background()
	out, err := caller.Call(ctx, "skills::list", map[string]any{})
	if err != nil {
		tb.Fatal(err)
	}
	var list struct{ Skills []json.RawMessage }
	if err := json.Unmarshal(out, &list); err != nil || len(list.Skills) != n {
		tb.Fatalf("skills::list returned %d skills (%v), want %d", len(list.Skills), err, n)
	}
	last := fmt.Sprintf("team-%03d/skill-%05d", (n-1)%100, n-1)
	read, err := caller.Call(ctx, "skills::resources-read", map[string]string{"uri": "iii://" + last})
	if err != nil || !strings.Contains(string(read), "Email provider") {
		tb.Fatalf("read of %s after boot: %v %.200s", last, err, read)
	}
	fetched, err := caller.Call(ctx, "skill::fetch", map[string]any{"uris": []string{"iii://team-000/skill-00000", "iii://" + last}})
	if err != nil || strings.Count(string(fetched), "# Email provider") != 2 {
		tb.Fatalf("skill::fetch after boot: %v %.200s", err, fetched)
	}
	for range indexReads {
		index, err := caller.Call(ctx, "skills::resources-read", map[string]string{"uri": "iii://skills"})
		if err != nil {
			tb.Fatal(err)
		}
		// Every skill is listed, or the index is cut at the response
		// budget with a line that says how many were left out (D26).
		text := string(index)
		if !strings.Contains(text, "(iii://team-000/skill-00000)") ||
			!strings.Contains(text, "(iii://"+last+")") && !strings.Contains(text, "more skills are not listed") {
			tb.Fatalf("the index does not list %s (%d bytes), ends: %s", last, len(index), index[max(0, len(index)-600):])
		}
	}
	if after := workerIDs(srv, "skills"); len(connections) != 1 || !slices.Equal(connections, after) {
		tb.Errorf("the worker reconnected while serving the large scope: connections %v, then %v", connections, after)
	}
	f.rss, f.peak = procMemory(tb, cmd.Process.Pid)
	return f
}

// workerIDs are the ids of the engine's connections that reported name.
func workerIDs(srv *engine.Engine, name string) []string {
	var out []string
	for _, w := range srv.Workers() {
		if w.Name == name {
			out = append(out, w.ID)
		}
	}
	return out
}

// procMemory reads VmRSS and VmHWM (bytes) of a process.
func procMemory(tb testing.TB, pid int) (rss, peak float64) {
	tb.Helper()
	status := procStatus(tb, pid)
	return status["VmRSS"], status["VmHWM"]
}

// procStatus reads the sizes /proc/PID/status gives in kB (VmRSS,
// VmHWM, RssAnon, RssFile, …), in bytes, by name.
func procStatus(tb testing.TB, pid int) map[string]float64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 3 && fields[2] == "kB" {
			kb, _ := strconv.ParseFloat(fields[1], 64)
			out[strings.TrimSuffix(fields[0], ":")] = kb * 1024
		}
	}
	return out
}
