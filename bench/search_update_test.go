package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// BenchmarkSearchUpdate measures how a search follows a change: each
// operation registers a new skill (a corpus body under a fresh id) and
// then searches, so every search first brings the index up to date with
// one more document. Against it, two no-op echo calls on the same engine
// (the same two round trips, nothing done). 1,000 corpus skills are in
// state from the start and the index is built before timing.
//
//	go test -run '^$' -bench SearchUpdate -benchtime 500x ./bench/
func BenchmarkSearchUpdate(b *testing.B) {
	corpus := corpusSkills(b)
	queries := corpusQueries(b)
	const n = 1000
	echo := iii.NewFunction("bench::echo", "returns nothing", func(context.Context, echoIn) (string, error) { return "", nil })
	r := newRig(b, rigOptions{extra: []iii.Function{echo}, seed: seedCorpus(b, corpus, n)})
	r.call(b, "skill::search", map[string]any{"query": queries[0]}) // builds the index
	b.Run("echo-twice", func(b *testing.B) {
		for range b.N {
			r.call(b, "bench::echo", map[string]any{})
			r.call(b, "bench::echo", map[string]any{})
		}
	})
	serial := 0
	b.Run(fmt.Sprintf("register-then-search-%d", n), func(b *testing.B) {
		var registering, searching time.Duration
		for i := range b.N {
			serial++
			src := corpus[serial%len(corpus)]
			start := time.Now()
			r.call(b, "skills::register", map[string]any{"id": fmt.Sprintf("new-%06d/%s", serial, src.id), "skill": src.body})
			registered := time.Now()
			r.call(b, "skill::search", map[string]any{"query": queries[i%len(queries)]})
			registering += registered.Sub(start)
			searching += time.Since(registered)
		}
		b.ReportMetric(float64(registering.Microseconds())/float64(b.N), "µs-register/op")
		b.ReportMetric(float64(searching.Microseconds())/float64(b.N), "µs-search/op")
	})
}
