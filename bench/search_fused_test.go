package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/search"
	"github.com/iii-hq/skills-go/internal/search/embedtest"
	"github.com/iii-hq/skills-go/internal/worker"
)

// fusedDimension is the bench embedder's vector length: that of a small
// sentence encoder, since comparing the query with every skill's vector
// costs in proportion to it.
const fusedDimension = 384

// BenchmarkSearchFused measures skill::search with search.embedder
// configured (docs/decisions.md D50) over the skills of BenchmarkSearch,
// every one embedded before the timing: the same searches over the same
// view, lexical (no embedder) and fused (the query embedded by a
// deterministic embedder registered on the engine, a call through it, and
// ranked against every skill's vector), in the same run. The difference
// is what fusion adds; the embedder here costs nothing to compute, so a
// real encoder adds its own time on top.
//
//	go test -run '^$' -bench SearchFused -benchtime 1000x ./bench/
func BenchmarkSearchFused(b *testing.B) {
	corpus := corpusSkills(b)
	queries := corpusQueries(b)
	hashed := embedtest.NewHashed(fusedDimension)
	embed := iii.NewFunction("bench::embed", "embeds texts by hashing their words", func(ctx context.Context, in struct {
		Texts []string `json:"texts"`
	}) (map[string][][]float32, error) {
		vecs, err := hashed.Embed(ctx, in.Texts)
		return map[string][][]float32{"vectors": vecs}, err
	})
	for _, n := range []int{1000, 10000} {
		r := newRig(b, rigOptions{extra: []iii.Function{embed}, seed: seedCorpus(b, corpus, n)})
		lexical := search.NewSearcher(search.SearcherConfig{View: r.reg.View()})
		fused := search.NewSearcher(search.SearcherConfig{View: r.reg.View(), Embedder: worker.NewEmbedder(r.worker, "bench::embed"), EmbedderName: "bench::embed"})
		embedAll(b, fused, n)
		for _, s := range []struct {
			name     string
			searcher *search.Searcher
		}{{"lexical", lexical}, {"fused", fused}} {
			b.Run(fmt.Sprintf("%s-%d", s.name, n), func(b *testing.B) {
				times := make([]time.Duration, 0, b.N)
				for i := range b.N {
					start := time.Now()
					out, err := s.searcher.Search(context.Background(), search.Request{Query: queries[i%len(queries)], Limit: 8})
					if err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
					if (out.Ranking != "") != (s.searcher == fused) {
						b.Fatalf("%s search ranked %q", s.name, out.Ranking)
					}
				}
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds()), "µs-p50")
				b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "µs-p99")
			})
		}
	}
}

// embedAll builds s's index and lets its Follow embed all n skills, and
// says how long that took.
func embedAll(b *testing.B, s *search.Searcher, n int) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var follow sync.WaitGroup
	follow.Add(1)
	go func() {
		defer follow.Done()
		s.Follow(ctx)
	}()
	b.Cleanup(func() { cancel(); follow.Wait() })
	start := time.Now()
	if _, err := s.Search(ctx, search.Request{Query: "warm up", Limit: 1}); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, _ := s.EmbedderStatus()
		if st.Vectors == n && st.Waiting == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the skills were not embedded in 2 minutes: %+v", st)
		}
		time.Sleep(10 * time.Millisecond) // the next look; the deadline decides failure
	}
	b.Logf("indexed and embedded %d skills in %s", n, time.Since(start).Round(time.Millisecond))
}
