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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

var (
	bootSkills     = flag.Int("boot-skills", 100_000, "skills BenchmarkBootLargeScope seeds")
	bootIndexReads = flag.Int("boot-index-reads", 100, "iii://skills reads BenchmarkBootLargeScope makes before reading the worker's memory")
)

// BenchmarkBootLargeScope seeds a scope far over the engine's 64 MiB frame
// (by default 100,000 skills of 4 KiB, 400 MB of bodies), starts the real
// worker binary against it, and reports how long until the catalog has
// loaded it, the worker's resident memory once it has served a listing, a
// read and -boot-index-reads reads of iii://skills, its peak, and
// both as a ratio of the stored body bytes (docs/decisions.md D22: boots
// and serves; steady RSS ≤ 1.5 × the bodies, or ≤ cache_bytes + summaries
// when smaller). Memory is read from /proc, so it is the process's, not
// the Go heap's. Run it with -benchtime 1x.
//
//	go test -run '^$' -bench BootLargeScope -benchtime 1x ./bench/
func BenchmarkBootLargeScope(b *testing.B) {
	srv := iiitest.NewServerWith(b, engine.Options{})
	body := skillBody(4096)
	seed(b, srv, *bootSkills, body)
	stored := float64(*bootSkills * len(body))

	bin := filepath.Join(b.TempDir(), "skills")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/skills").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := filepath.Join(b.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("state_timeout_ms: 600000\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "bench-caller", CallTimeout: 10 * time.Minute})
	caller.Start()
	b.Cleanup(func() { caller.Close() })

	for range b.N {
		cmd := exec.Command(bin, "--url", srv.URL(), "--config", cfg)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
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
		var boot time.Duration
		select {
		case boot = <-loaded:
		case <-time.After(10 * time.Minute):
			_ = cmd.Process.Kill()
			b.Fatal("the catalog never loaded")
		}
		ctx := context.Background()
		out, err := caller.Call(ctx, "skills::list", map[string]any{})
		if err != nil {
			b.Fatal(err)
		}
		var list struct{ Skills []json.RawMessage }
		if err := json.Unmarshal(out, &list); err != nil || len(list.Skills) != *bootSkills {
			b.Fatalf("skills::list returned %d skills (%v), want %d", len(list.Skills), err, *bootSkills)
		}
		read, err := caller.Call(ctx, "skills::resources-read", map[string]string{"uri": "iii://team-042/skill-00042"})
		if err != nil || !strings.Contains(string(read), "Email provider") {
			b.Fatalf("read after boot: %v %.200s", err, read)
		}
		for range *bootIndexReads {
			if _, err := caller.Call(ctx, "skills::resources-read", map[string]string{"uri": "iii://skills"}); err != nil {
				b.Fatal(err)
			}
		}
		rss, peak := procMemory(b, cmd.Process.Pid)
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		b.ReportMetric(boot.Seconds(), "s-to-load")
		b.ReportMetric(rss/1e6, "MB-rss")
		b.ReportMetric(peak/1e6, "MB-peak")
		b.ReportMetric(rss/stored, "rss/bodies")
	}
	b.ReportMetric(0, "ns/op")
}

// procMemory reads VmRSS and VmHWM (bytes) of a process.
func procMemory(tb testing.TB, pid int) (rss, peak float64) {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmRSS:":
			rss = kb * 1024
		case "VmHWM:":
			peak = kb * 1024
		}
	}
	return rss, peak
}
