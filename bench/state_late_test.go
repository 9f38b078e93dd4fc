package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// lateTimeout bounds each wait of a state-late round.
const lateTimeout = 2 * time.Minute

// BenchmarkStateWorkerLate measures how long the real worker binary takes
// to serve a scope that is already in state from the moment the engine's
// state worker registers after it (iii 0.24 runs state as a worker of its
// own; docs/decisions.md D55), against the load of the same scope on a
// connection that has state from the start, in the same round.
//
// Late: an engine with Options.StateWorkerLate, n skill rows of 4 KiB
// seeded with SetState (the row shape the catalog decodes:
// {"id","skill","registered_at"}); the worker starts, says it is ready,
// and binds engine::workers-available while it waits for the state
// trigger type (read-through meanwhile); then StartState. Measured from
// just before StartState: until the worker logs that the state trigger
// type appeared (noticed: the event, one engine::triggers::list) and
// until it logs both scopes loaded, the skills scope with n entries
// (live and loaded). Early: an engine with state from the start and the
// same rows; measured from the worker's "connected to engine" to the
// same two lines (the load on a connection, one engine::triggers::list
// included). Each round then checks from outside that the worker serves
// the scope from its mirror: skills::diagnostics says state_trigger true,
// catalog mode live with n skills, and skills::list lists n.
//
// The worker's log lines are the observation, stamped as they arrive on
// its stdout: polling skills::diagnostics or skills::list while the
// catalog is read-through would make each poll a state::list of the
// whole scope through the engine (40 MB at 10,000 rows), slowing the very
// load being timed.
//
// Rows: n = 1,000 and 10,000; loaded with state::list (an engine without
// the paged listing) and with state::list_entries (Options.StateListEntries,
// as 0.24's state worker). Reported: medians in ms, and late
// (StartState to loaded) over early (connected to loaded).
//
//	go test -run '^$' -bench StateWorkerLate -benchtime 5x ./bench/
func BenchmarkStateWorkerLate(b *testing.B) {
	bin := buildWorker(b)
	cfg := filepath.Join(b.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("state_timeout_ms: 120000\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	body := skillBody(4096)
	for _, n := range []int{1000, 10_000} {
		for _, listing := range []string{"state-list", "list-entries"} {
			b.Run(fmt.Sprintf("rows=%d/%s", n, listing), func(b *testing.B) {
				var noticed, lateLoaded, lateLoad, earlyLoad []time.Duration
				lateFirst := true
				for range b.N {
					for _, late := range []bool{lateFirst, !lateFirst} {
						opts := engine.Options{StateWorkerLate: late, StateListEntries: listing == "list-entries"}
						if late {
							seen, loaded := stateRound(b, bin, cfg, opts, n, body)
							noticed = append(noticed, seen)
							lateLoaded = append(lateLoaded, loaded)
							lateLoad = append(lateLoad, loaded-seen)
						} else {
							_, loaded := stateRound(b, bin, cfg, opts, n, body)
							earlyLoad = append(earlyLoad, loaded)
						}
					}
					lateFirst = !lateFirst
				}
				b.ReportMetric(ms(median(noticed)), "ms-noticed")
				b.ReportMetric(ms(median(lateLoaded)), "ms-live-loaded")
				b.ReportMetric(ms(median(lateLoad)), "ms-load-late")
				b.ReportMetric(ms(median(earlyLoad)), "ms-load-early")
				b.ReportMetric(ms(median(lateLoaded))/ms(median(earlyLoad)), "late/early")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// stateRound runs one round on a fresh engine with opts holding n rows of
// body. With opts.StateWorkerLate it returns how long after StartState
// the worker noticed the state trigger type and had its scopes loaded;
// otherwise (noticed 0) how long after it connected they were loaded.
func stateRound(tb testing.TB, bin, cfg string, opts engine.Options, n int, body string) (noticed, loaded time.Duration) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), lateTimeout)
	defer cancel()
	srv, err := engine.Start(ctx, "127.0.0.1:0", opts)
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	seed(tb, srv, n, body)
	p := startWorker(tb, bin, tb.TempDir(), inheritedEnv("III_URL="+srv.URL()), "--config", cfg)
	defer p.stop()

	var from time.Time
	if opts.StateWorkerLate {
		p.waitLine(tb, lateTimeout, "skills ready")
		waitStateWatch(ctx, tb, srv, p)
		from = time.Now()
		srv.StartState()
		noticed = p.waitLineAfter(tb, from, lateTimeout, "the engine's state trigger type appeared").Sub(from)
	} else {
		from = p.waitLine(tb, lateTimeout, "connected to engine")
	}
	skills := p.waitLineAfter(tb, from, lateTimeout, "catalog loaded", `"scope": "skills"`, fmt.Sprintf(`"entries": %d`, n))
	prompts := p.waitLineAfter(tb, from, lateTimeout, "catalog loaded", `"scope": "prompts"`)
	loaded = max(skills.Sub(from), prompts.Sub(from))
	if !opts.StateWorkerLate && strings.Contains(p.log(), "state trigger type appeared") {
		tb.Fatalf("the worker waited for the state trigger type on an engine that has it from the start; its log:\n%s", p.log())
	}
	servesFromItsMirror(ctx, tb, srv, n, p)
	return noticed, loaded
}

// waitStateWatch waits until the worker's catalog has bound
// engine::workers-available, which it does only while it waits for the
// state trigger type (docs/decisions.md D55): from then on it is in the
// state StartState is meant to find it in.
func waitStateWatch(ctx context.Context, tb testing.TB, srv *engine.Engine, p *workerProcess) {
	tb.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if slices.ContainsFunc(srv.Bindings(), func(b engine.Binding) bool {
			return b.TriggerType == "engine::workers-available" && !b.Parked && strings.HasPrefix(b.FunctionID, "skills::catalog::engine-")
		}) {
			return
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("the worker's catalog never waited for the state trigger type; its log:\n%s", p.log())
		case <-tick.C: // paces the asking; ctx decides
		}
	}
}

// servesFromItsMirror checks, from outside, that the worker's catalog is
// live and holds the n rows, and that skills::list lists them.
func servesFromItsMirror(ctx context.Context, tb testing.TB, srv *engine.Engine, n int, p *workerProcess) {
	tb.Helper()
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "bench-caller", CallTimeout: lateTimeout})
	caller.Start()
	defer caller.Close()
	if err := caller.WaitReady(ctx); err != nil {
		tb.Fatal(err)
	}
	out, err := caller.Call(ctx, "skills::diagnostics", map[string]any{})
	if err != nil {
		tb.Fatal(err)
	}
	var rep struct {
		Engine struct {
			StateTrigger bool `json:"state_trigger"`
		} `json:"engine"`
		Catalog struct {
			Mode   string `json:"mode"`
			Skills int    `json:"skills"`
		} `json:"catalog"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || !rep.Engine.StateTrigger || rep.Catalog.Mode != "live" || rep.Catalog.Skills != n {
		tb.Fatalf("skills::diagnostics after the load: %+v (%v); want state_trigger, mode live and %d skills; the worker's log:\n%s", rep, err, n, p.log())
	}
	out, err = caller.Call(ctx, "skills::list", map[string]any{})
	var listed struct{ Skills []json.RawMessage }
	if err != nil || json.Unmarshal(out, &listed) != nil || len(listed.Skills) != n {
		tb.Fatalf("skills::list after the load: %d skills (%v); want %d", len(listed.Skills), err, n)
	}
}
