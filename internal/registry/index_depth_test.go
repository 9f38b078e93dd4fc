package registry

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// treeBullets is an index of n skills, sorted by id: groups of 100 under
// one top-level prefix each (g00000/s00000 …), and, when depth > 0, a
// chain c, c/c, c/c/c … of depth levels in place of as many of them.
func treeBullets(n, depth int) []bullet {
	ids := make([]string, 0, n)
	chain := "c"
	for range depth {
		ids = append(ids, chain)
		chain += "/c"
	}
	for i := 0; len(ids) < n; i++ {
		ids = append(ids, fmt.Sprintf("g%05d/s%05d", i/100, i))
	}
	slices.Sort(ids)
	out := make([]bullet, len(ids))
	for i, id := range ids {
		out[i] = bullet{id: id, depth: strings.Count(id, "/"), title: "Title of " + id, desc: "What it is for.", hasDesc: true}
	}
	return out
}

// depthTokens is a budget a tree of n skills in groups of 100 fits in
// once every level under the top is folded, and not before.
func depthTokens(n int) int { return n / 100 * 20 }

// fastest is the shortest of a few runs of f: the least disturbed by the
// other work of a shared machine.
func fastest(runs int, f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range runs {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}

// A deep chain costs the budgeted index no more than a flat tree of the
// same size: the render is linear in the skills whatever the depth (issue
// 27: a chain 500 deep among 100,000 skills took 24–29 s a render, as the
// index was rendered again after folding each level). The bound is a
// ratio to the flat tree, not a time, so a slow machine does not fail it.
func TestBudgetedIndexIsLinearInDepth(t *testing.T) {
	const n, depth, ratio = 20_000, 500, 4
	flat, deep := treeBullets(n, 0), treeBullets(n, depth)
	budget := depthTokens(n)
	render := func(list []bullet) func() {
		return func() { renderBudgeted(list, nil, budget, 0) }
	}
	for _, list := range [][]bullet{flat, deep} {
		text := renderBudgeted(list, nil, budget, 0)
		if (len(text)+3)/4 > budget || strings.Contains(text, "more skills are not listed") {
			t.Fatalf("the tree does not fold to its top level within %d tokens:\n%.400s", budget, text)
		}
	}
	tFlat, tDeep := fastest(3, render(flat)), fastest(3, render(deep))
	if tDeep > ratio*tFlat {
		t.Errorf("a chain %d deep among %d skills renders in %v, a flat tree in %v: over %d times as long", depth, n, tDeep, tFlat, ratio)
	}
}

// The linear fit gives exactly what the first algorithm gave, on random
// trees (state and files, roots among the files) at every budget from
// nothing to more than the whole index.
func TestFitIndexMatchesTheReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 5))
	segs := []string{"a", "b", "a-b", "a.b", "ab", "c", "zz"}
	randomList := func(n int) []bullet {
		set := map[string]bool{}
		for range n {
			var parts []string
			for range 1 + rng.IntN(5) {
				parts = append(parts, segs[rng.IntN(len(segs))])
			}
			set[strings.Join(parts, "/")] = true
		}
		var ids []string
		for id := range set {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		out := budgetBullets(ids...)
		for i := range out {
			out[i].root = rng.IntN(4) == 0
		}
		return out
	}
	for trial := range 120 {
		state, fs := randomList(rng.IntN(25)), randomList(rng.IntN(25))
		full := (len(renderBullets(state, fs, 0)) + 3) / 4
		for tokens := 1; tokens <= full+2; tokens += 1 + rng.IntN(4) {
			ws, wf, wl := fitIndexReference(state, fs, tokens)
			gs, gf, gl := fitIndex(state, fs, tokens)
			want, got := renderBullets(ws, wf, 0), renderBullets(gs, gf, 0)
			if wl != gl || want != got {
				t.Fatalf("trial %d, %d tokens: left %d, want %d; index (-want +got):\n%s\n----\n%s", trial, tokens, gl, wl, want, got)
			}
			if w, g := renderBudgeted(state, fs, tokens, 0), renderBudgeted(state, fs, tokens, 0); w != g {
				t.Fatalf("renderBudgeted is not deterministic")
			}
		}
	}
}

// BenchmarkBudgetedIndexDeep is the measure of issue 27: a chain 500 deep
// among 100,000 skills, with index_max_tokens set (BENCHMARKS.md).
func BenchmarkBudgetedIndexDeep(b *testing.B) {
	for _, depth := range []int{0, 500} {
		list := treeBullets(100_000, depth)
		budget := depthTokens(100_000)
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			for b.Loop() {
				renderBudgeted(list, nil, budget, 0)
			}
		})
	}
}
