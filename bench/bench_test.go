package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/mcpskills"
	"github.com/iii-hq/skills-go/internal/redistest"
	"github.com/iii-hq/skills-go/internal/registry"
	"github.com/iii-hq/skills-go/internal/roots"
	"github.com/iii-hq/skills-go/internal/search"
)

// rig is one engine, the registry worker (with its catalog, as the
// worker runs it), and a caller.
type rig struct {
	srv    *engine.Engine
	worker *iii.Client
	caller *iii.Client
	skills *catalog.Scope // the worker's mirror of the skills scope; nil with noCatalog
	reg    *registry.Registry
}

// rigOptions shape a rig: seed writes state before the worker connects
// (so the catalog's first load sees it); noCatalog serves every read
// through the engine, as 0.2 did.
type rigOptions struct {
	seed      func(*engine.Engine)
	noCatalog bool
	extra     []iii.Function
	fsDir     string // a directory of skills (**/*.md), watched as the worker does
	// bodyStore keeps the catalog's bodies in a BodyStore, as the worker
	// does (docs/decisions.md D54); cacheBytes, when set, replaces the
	// default 256 MiB budget.
	bodyStore  bool
	cacheBytes int64
	// dataDir keeps the engine's state there (skills engine --data).
	dataDir string
	// stateURL keeps the engine's state in that Redis (skills engine
	// --state, D71).
	stateURL string
}

// stateIn is opts with the engine's state in store: "memory", "data" (a
// temporary --data directory) or "redis" (a redis-server of its own).
func stateIn(tb testing.TB, store string, opts rigOptions) rigOptions {
	switch store {
	case "data":
		opts.dataDir = tb.TempDir()
	case "redis":
		opts.stateURL = redistest.NewServer(tb, redistest.Options{}).URL
	}
	return opts
}

func newRig(tb testing.TB, opts rigOptions) *rig {
	tb.Helper()
	srv := iiitest.NewServerWith(tb, engine.Options{DataDir: opts.dataDir, StateURL: opts.stateURL})
	if opts.seed != nil {
		opts.seed(srv)
	}
	worker := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	cfg := registry.Config{Caller: worker}
	var cat *catalog.Catalog
	if !opts.noCatalog {
		cacheBytes := cmp.Or(opts.cacheBytes, 256<<20)
		cfg.SkillsMirror = catalog.NewSkillsScope("skills", cacheBytes)
		if opts.bodyStore {
			store := catalog.OpenBodyStore(tb.TempDir(), nil)
			tb.Cleanup(func() { store.Close() })
			cfg.SkillsMirror.UseBodyStore(store)
		}
		cfg.PromptsMirror = catalog.NewPromptsScope("prompts")
		cat = catalog.New(worker, 10*time.Second, nil, cfg.SkillsMirror, cfg.PromptsMirror)
	}
	if opts.fsDir != "" {
		cfg.FS = fsource.New(opts.fsDir, []string{"**/*.md"}, nil)
		cfg.FSWatch = fsource.NewWatch(cfg.FS, fsource.WatchOptions{})
		cfg.FSCacheBytes = 256 << 20
		cfg.FSWatch.Start(context.Background())
		tb.Cleanup(cfg.FSWatch.Close)
	}
	reg := registry.New(cfg)
	for _, f := range append(workerFunctions(reg), opts.extra...) {
		worker.RegisterFunction(f)
	}
	// The worker's goroutines carry the label rig=worker (goroutines
	// inherit their creator's labels), so a CPU profile of a benchmark
	// tells the worker's share from the engine's and the caller's:
	// go tool pprof -tagfocus rig=worker.
	workerSide(func() { worker.Start() })
	tb.Cleanup(func() { worker.Close() })
	if cat != nil {
		workerSide(cat.Start)
		tb.Cleanup(cat.Close)
	}
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "bench-caller"})
	caller.Start()
	tb.Cleanup(func() { caller.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, c := range []*iii.Client{worker, caller} {
		if err := c.WaitReady(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	for _, f := range append(workerFunctions(reg), opts.extra...) {
		if err := srv.WaitFunction(ctx, f.ID); err != nil {
			tb.Fatal(err)
		}
	}
	if cat != nil {
		for _, scope := range []*catalog.Scope{cfg.SkillsMirror, cfg.PromptsMirror} {
			if err := catalogtest.WaitLoaded(ctx, scope); err != nil {
				tb.Fatalf("the catalog never loaded scope %s: %v", scope.Name(), err)
			}
		}
	}
	return &rig{srv: srv, worker: worker, caller: caller, skills: cfg.SkillsMirror, reg: reg}
}

// workerSide runs start with the profiler label rig=worker, which every
// goroutine it starts inherits.
func workerSide(start func()) {
	pprof.Do(context.Background(), pprof.Labels("rig", "worker"), func(context.Context) { start() })
}

func (r *rig) call(tb testing.TB, functionID string, data any) json.RawMessage {
	out, err := r.caller.Call(context.Background(), functionID, data)
	if err != nil {
		tb.Fatalf("%s: %v", functionID, err)
	}
	return out
}

// skillBody returns a markdown body of exactly n bytes.
func skillBody(n int) string {
	head := "# Email provider\n\nSend transactional email through the provider's API; read this before calling its functions.\n\n"
	var b strings.Builder
	b.WriteString(head)
	for b.Len() < n {
		b.WriteString("- step: call the function with the recipient, subject and body; check the result.\n")
	}
	return b.String()[:n]
}

type echoIn struct{}

// reportCPU reports the CPU time the process spent per operation, from
// here to the deferred call of what it returns. The engine, the worker and
// the caller all run in this process, so this is the whole cost of a
// call; on a shared machine it moves less with other processes' load than
// the wall time per operation does (use: defer reportCPU(b)()).
func reportCPU(b *testing.B) func() {
	start, ok := processCPU()
	return func() {
		if end, ended := processCPU(); ok && ended && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkRead compares skills::resources-read of a 4 KiB skill with a
// bare function on the same engine that returns the same bytes: the
// read's whole result ({"contents":[…]}), captured from a first read and
// sent verbatim, so both replies cost the engine and the sockets the
// same. The ratio of the two is the registry's overhead. Variants: the
// bodies on the heap (no suffix), in a BodyStore (-store: a pread per
// read), a read that misses the store and goes to the engine
// (-store-miss: one more round trip, state::get), and no catalog at all
// (-no-catalog, as 0.2: state::get on every read).
func BenchmarkRead(b *testing.B) {
	body := skillBody(4096)
	var reply atomic.Value // the read's result, once known, for the echo
	echo := iii.Function{ID: "bench::echo", Description: "returns the read's result",
		Handler: func(context.Context, iii.Request) (any, error) { return reply.Load().(json.RawMessage), nil }}
	read := map[string]string{"uri": "iii://resend/email"}
	for _, variant := range []struct {
		name string
		opts rigOptions
	}{
		{"", rigOptions{extra: []iii.Function{echo}}},
		{"-store", rigOptions{extra: []iii.Function{echo}, bodyStore: true}},
		// cache_bytes below the body: every read misses the store and
		// asks the engine (state::get), then offers the body to the store,
		// which refuses it.
		{"-store-miss", rigOptions{extra: []iii.Function{echo}, bodyStore: true, cacheBytes: 1024}},
		{"-no-catalog", rigOptions{extra: []iii.Function{echo}, noCatalog: true}},
	} {
		r := newRig(b, variant.opts)
		r.call(b, "skills::register", map[string]string{"id": "resend/email", "skill": body})
		out := r.call(b, "skills::resources-read", read)
		if !strings.Contains(string(out), "Email provider") {
			b.Fatalf("read returned %s", out)
		}
		reply.Store(out)
		if echoed := r.call(b, "bench::echo", struct{}{}); string(echoed) != string(out) {
			b.Fatalf("the echo returned %d bytes, not the read's %d", len(echoed), len(out))
		}
		b.Run("echo-4KiB"+variant.name, func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				r.call(b, "bench::echo", struct{}{})
			}
		})
		b.Run("resources-read-4KiB"+variant.name, func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				r.call(b, "skills::resources-read", read)
			}
		})
		if variant.name != "" {
			continue
		}
		// Throughput with 8 concurrent callers (issue 10: ≥ 0.9 × echo's).
		b.Run("echo-4KiB-8callers", func(b *testing.B) {
			defer reportCPU(b)()
			b.SetParallelism(8 / max(1, runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r.call(b, "bench::echo", struct{}{})
				}
			})
		})
		b.Run("resources-read-4KiB-8callers", func(b *testing.B) {
			defer reportCPU(b)()
			b.SetParallelism(8 / max(1, runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r.call(b, "skills::resources-read", read)
				}
			})
		})
	}
}

// BenchmarkRegister measures skills::register (validation, state::set
// and the on-change fan-out) one call at a time and with parallel
// callers, of a 1 KiB skill (the figure BENCHMARKS.md and issue 22 have
// followed since issue 3, though both called it a 4 KiB register) and of
// a 4 KiB one; each is compared with the 4 KiB echo of BenchmarkRead.
func BenchmarkRegister(b *testing.B) {
	r := newRig(b, rigOptions{})
	var n atomic.Int64
	for _, size := range []struct {
		suffix string
		body   string
	}{{"", skillBody(1024)}, {"-4KiB", skillBody(4096)}} {
		b.Run("sequential"+size.suffix, func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				r.call(b, "skills::register", map[string]string{"id": fmt.Sprintf("seq/s%d", n.Add(1)), "skill": size.body})
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "registers/s")
		})
		b.Run("parallel"+size.suffix, func(b *testing.B) {
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r.call(b, "skills::register", map[string]string{"id": fmt.Sprintf("par/s%d", n.Add(1)), "skill": size.body})
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "registers/s")
		})
	}
}

// BenchmarkIndex10k reads iii://skills through the engine with 10,000
// skills registered (seeded straight into the engine's state, as rows the
// worker itself writes), next to an echo function returning a string as
// long as the index, through the same engine: the ratio is the registry's
// cost of an index read.
func BenchmarkIndex10k(b *testing.B) {
	for _, size := range []int{512, 4096} {
		var index atomic.Value // the index text, once known, for the echo
		echo := iii.NewFunction("bench::echo-index", "returns a string as long as the index",
			func(context.Context, echoIn) (string, error) { return index.Load().(string), nil })
		r := newRig(b, rigOptions{seed: func(srv *engine.Engine) { seed(b, srv, 10000, skillBody(size)) }, extra: []iii.Function{echo}})
		read := map[string]string{"uri": "iii://skills"}
		out := r.call(b, "skills::resources-read", read)
		if got := strings.Count(string(out), "](iii://"); got != 10000 {
			b.Fatalf("index lists %d skills, want 10000", got)
		}
		var env struct {
			Contents []struct{ Text string } `json:"contents"`
		}
		if err := json.Unmarshal(out, &env); err != nil || len(env.Contents) != 1 {
			b.Fatalf("index envelope: %v", err)
		}
		index.Store(env.Contents[0].Text)
		b.Run(fmt.Sprintf("echo-%dB", size), func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				r.call(b, "bench::echo-index", struct{}{})
			}
		})
		b.Run(fmt.Sprintf("body-%dB", size), func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				r.call(b, "skills::resources-read", read)
			}
		})
	}
}

func seed(tb testing.TB, srv *engine.Engine, n int, body string) {
	tb.Helper()
	for i := range n {
		id := fmt.Sprintf("team-%03d/skill-%05d", i%100, i)
		row, err := json.Marshal(map[string]string{"id": id, "skill": body, "registered_at": "2026-11-22T04:00:00.000000000+00:00"})
		if err != nil {
			tb.Fatal(err)
		}
		if err := srv.SetState("skills", id, row); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkFS5k lists and reads skills from a watched tree of 5,000 files
// (50 directories of 100), each next to an echo through the same engine
// that returns the same bytes as the call it stands beside (issue 22): the
// listing's JSON for skills::list, the read's envelope for the read, so
// both sides carry the same result through the engine.
func BenchmarkFS5k(b *testing.B) {
	dir := b.TempDir()
	body := skillBody(2048)
	for i := range 5000 {
		path := filepath.Join(dir, fmt.Sprintf("team-%02d", i%50), fmt.Sprintf("skill-%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var listing, readOne atomic.Value // the calls' results, once known, for the echoes
	echo := iii.NewFunction("bench::echo-listing", "returns the bytes skills::list returns",
		func(context.Context, echoIn) (json.RawMessage, error) { return listing.Load().(json.RawMessage), nil })
	echoBody := iii.NewFunction("bench::echo-body", "returns the bytes the read returns",
		func(context.Context, echoIn) (json.RawMessage, error) { return readOne.Load().(json.RawMessage), nil })
	r := newRig(b, rigOptions{fsDir: dir, extra: []iii.Function{echo, echoBody}})
	out := r.call(b, "skills::list", struct{}{})
	if n := strings.Count(string(out), `"origin":"fs"`); n != 5000 {
		b.Fatalf("skills::list lists %d fs skills, want 5000", n)
	}
	listing.Store(out)
	read := map[string]string{"uri": "iii://team-07/skill-1007"}
	one := r.call(b, "skills::resources-read", read)
	if !strings.Contains(string(one), "Email provider") {
		b.Fatalf("read returned %.200s", one)
	}
	readOne.Store(one)
	for _, pair := range [][2]string{{"bench::echo-listing", "skills::list"}, {"bench::echo-body", "skills::resources-read"}} {
		args := any(struct{}{})
		if pair[1] == "skills::resources-read" {
			args = read
		}
		if echoed, real := r.call(b, pair[0], struct{}{}), r.call(b, pair[1], args); !bytes.Equal(echoed, real) {
			b.Fatalf("%s returns %d bytes that differ from the %d of %s", pair[0], len(echoed), len(real), pair[1])
		}
	}
	for _, c := range []struct {
		name, fn string
		args     any
	}{
		{"echo-listing", "bench::echo-listing", struct{}{}},
		{"skills-list", "skills::list", struct{}{}},
		{"echo-body", "bench::echo-body", struct{}{}},
		{"read-one", "skills::resources-read", read},
	} {
		b.Run(c.name, func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				r.call(b, c.fn, c.args)
			}
		})
	}
}

// workerFunctions are the functions the worker registers over reg, in
// its order: 0.2's thirteen, the roots functions, search, diagnostics,
// then the MCP Skills extension's, all over reg's view.
func workerFunctions(reg *registry.Registry) []iii.Function {
	fns := append(reg.Functions(), roots.New(roots.Config{View: reg.View()}).Functions()...)
	fns = append(fns, search.NewSearcher(search.SearcherConfig{View: reg.View()}).Function(), diagnostics.New(diagnostics.Config{View: reg.View()}).Function())
	return append(fns, mcpskills.New(mcpskills.Config{View: reg.View()}).Functions()...)
}
