package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/registry"
)

// corpusDir is the search evaluation corpus (internal/search/testdata).
var corpusDir = filepath.Join("..", "internal", "search", "testdata", "corpus")

// BenchmarkSearch measures skill::search (D40) over 1,000 and 10,000
// skills registered in state, their bodies taken from the evaluation
// corpus (each corpus skill copied under a numbered prefix), with the
// corpus's queries in turn:
//
//   - worker: the handler alone, in the worker (the figure D40 bounds: p50 ≤ 2 ms at 10,000);
//
//   - call: skill::search through the engine, against a no-op echo on the same worker.
//
//     go test -run '^$' -bench Search -benchtime 2000x ./bench/
func BenchmarkSearch(b *testing.B) {
	corpus := corpusSkills(b)
	queries := corpusQueries(b)
	echo := iii.NewFunction("bench::echo", "returns nothing", func(context.Context, echoIn) (string, error) { return "", nil })
	for _, n := range []int{1000, 10000} {
		r := newRig(b, rigOptions{extra: []iii.Function{echo}, seed: seedCorpus(b, corpus, n)})
		handler := searchHandler(b, r.reg)
		ctx := context.Background()
		payload := func(i int) json.RawMessage {
			p, _ := json.Marshal(map[string]any{"query": queries[i%len(queries)]})
			return p
		}
		start := time.Now()
		if _, err := handler(ctx, iii.Request{Data: payload(0)}); err != nil { // builds the index
			b.Fatal(err)
		}
		b.Logf("the first search indexed %d skills in %s", n, time.Since(start).Round(time.Millisecond))
		b.Run(fmt.Sprintf("worker-%d", n), func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for i := range b.N {
				start := time.Now()
				if _, err := handler(ctx, iii.Request{Data: payload(i)}); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds()), "µs-p50")
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "µs-p99")
		})
		b.Run(fmt.Sprintf("echo-%d", n), func(b *testing.B) {
			for range b.N {
				r.call(b, "bench::echo", map[string]any{})
			}
		})
		b.Run(fmt.Sprintf("call-%d", n), func(b *testing.B) {
			for i := range b.N {
				r.call(b, contract.FnSkillSearch, map[string]any{"query": queries[i%len(queries)]})
			}
		})
	}
}

type corpusSkill struct{ id, body string }

// seedCorpus stores n skills in state before the worker starts: the
// corpus's skills in turn, each round under its own numbered prefix.
func seedCorpus(tb testing.TB, corpus []corpusSkill, n int) func(*engine.Engine) {
	return func(srv *engine.Engine) {
		for i := range n {
			src := corpus[i%len(corpus)]
			id := fmt.Sprintf("set-%04d/%s", i/len(corpus), src.id)
			row, _ := json.Marshal(map[string]string{"id": id, "skill": src.body, "registered_at": "2026-11-23T00:00:00.000000000+00:00"})
			if err := srv.SetState("skills", id, row); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

func corpusSkills(tb testing.TB) []corpusSkill {
	tb.Helper()
	dir, err := filepath.Abs(corpusDir)
	if err != nil {
		tb.Fatal(err)
	}
	skills, _ := fsource.New(dir, nil, nil, fsource.Roots("skills")).Skills()
	var out []corpusSkill
	for _, sk := range skills {
		body, err := fsource.ReadBody(sk.Path)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, corpusSkill{id: sk.ID, body: body})
	}
	return out
}

func corpusQueries(tb testing.TB) []string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusDir, "queries.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var qs []struct {
		Q string `json:"q"`
	}
	if err := json.Unmarshal(raw, &qs); err != nil {
		tb.Fatal(err)
	}
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Q
	}
	return out
}

func searchHandler(tb testing.TB, reg *registry.Registry) iii.Handler {
	return handlerOf(tb, reg, contract.FnSkillSearch)
}

// handlerOf is the handler of one of the worker's functions, to time it
// in the worker without the engine.
func handlerOf(tb testing.TB, reg *registry.Registry, id string) iii.Handler {
	for _, f := range workerFunctions(reg) {
		if f.ID == id {
			return f.Handler
		}
	}
	tb.Fatalf("no %s", id)
	return nil
}
