package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// An index updated by many puts, replacements and drops ranks exactly as
// one built from scratch on the final documents: removals leave nothing
// behind, reused slots carry nothing over.
func TestUpdatesMatchAFreshBuild(t *testing.T) {
	words := []string{"postgres", "backup", "restore", "kubernetes", "deploy", "rollback", "invoice", "refund", "queue", "cache", "index", "token"}
	doc := func(r *rand.Rand, id string) Doc {
		var body []string
		for range 5 + r.IntN(20) {
			body = append(body, words[r.IntN(len(words))])
		}
		return Doc{ID: id, Title: words[r.IntN(len(words))], Description: words[r.IntN(len(words))], Body: fmt.Sprint(body)}
	}
	r := rand.New(rand.NewPCG(1, 2))
	x := New()
	final := map[string]Doc{}
	for round := range 200 {
		var put []Doc
		var drop []string
		for range 1 + r.IntN(5) {
			id := fmt.Sprintf("doc-%02d", r.IntN(40))
			if r.IntN(3) == 0 {
				drop = append(drop, id)
				delete(final, id)
				continue
			}
			d := doc(r, id)
			put = append(put, d)
			final[id] = d
		}
		// A put after a drop of the same id in one update keeps the put.
		for _, d := range put {
			final[d.ID] = d
		}
		x.Update(put, drop)
		if round%50 != 49 {
			continue
		}
		fresh := New()
		var all []Doc
		for _, d := range final {
			all = append(all, d)
		}
		fresh.Update(all, nil)
		if x.Len() != len(final) || fresh.Len() != len(final) {
			t.Fatalf("round %d: Len %d and %d, want %d", round, x.Len(), fresh.Len(), len(final))
		}
		for _, q := range words {
			got, gotTotal := x.Search(q+" backup", 50)
			want, wantTotal := fresh.Search(q+" backup", 50)
			if gotTotal != wantTotal || !slices.EqualFunc(got, want, func(a, b Hit) bool { return a.ID == b.ID && abs(a.Score-b.Score) < 1e-9 }) {
				t.Fatalf("round %d, query %q: updated index %v (%d), fresh %v (%d)", round, q, got, gotTotal, want, wantTotal)
			}
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
