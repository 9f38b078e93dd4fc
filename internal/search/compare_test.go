package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Paired comparisons of two rankers over the same needs (issue 30,
// docs/search.md#measuring-against-bm25): per need, which of the two
// ranks an expected id higher, and a bootstrap 95 % interval of the
// difference in MRR@10. The resampling is seeded, so a run prints the
// same interval every time.

// bootstrapResamples is how many resamples of the needs the interval is
// drawn from.
const bootstrapResamples = 10000

// comparison is one ranker against another over one kind of need.
type comparison struct {
	n                    int
	better, worse, equal int     // needs where the first ranks an expected id higher, lower, the same
	delta                float64 // MRR@10 of the first minus the second's
	lo, hi               float64 // bootstrap 95 % interval of delta
}

// compareRankers pairs a and b (reciprocal ranks per need, in the needs'
// order) over the needs of kind ("all" for every need).
func compareRankers(needs []corpusQuery, a, b []float64, kind string) comparison {
	var diff []float64
	var c comparison
	for i, q := range needs {
		if kind != "all" && q.Kind != kind {
			continue
		}
		d := a[i] - b[i]
		switch {
		case d > 0:
			c.better++
		case d < 0:
			c.worse++
		default:
			c.equal++
		}
		diff = append(diff, d)
	}
	c.n = len(diff)
	if c.n == 0 {
		return c
	}
	c.delta = mean(diff)
	rng := rand.New(rand.NewPCG(30, uint64(c.n)))
	means := make([]float64, bootstrapResamples)
	for r := range means {
		sum := 0.0
		for range diff {
			sum += diff[rng.IntN(len(diff))]
		}
		means[r] = sum / float64(len(diff))
	}
	slices.Sort(means)
	c.lo, c.hi = means[bootstrapResamples*25/1000], means[bootstrapResamples*975/1000-1]
	return c
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// resultNamed is the ranker of that name among results; it fails the
// test when there is none.
func resultNamed(t *testing.T, results []rankerResult, name string) rankerResult {
	t.Helper()
	i := slices.IndexFunc(results, func(r rankerResult) bool { return r.name == name })
	if i < 0 {
		t.Fatalf("no ranker %q among the results", name)
	}
	return results[i]
}

// The two BM25 references every figure is reported against (rankAll).
const (
	bm25SkillFiles = "BM25, SKILL.md only"
	bm25AllDocs    = "BM25, all documents"
)

// checkRecall5NotBehind fails when the first ranker (the shipped one)
// has a lower recall@5 than BM25 over the SKILL.md files (issue 30).
func checkRecall5NotBehind(t *testing.T, results []rankerResult) {
	t.Helper()
	got, base := results[0].res["all"].r5(), resultNamed(t, results, bm25SkillFiles).res["all"].r5()
	if got < base {
		t.Errorf("recall@5 %.3f, below %s's %.3f", got, bm25SkillFiles, base)
	}
}

// logComparisons logs every ranker other than the references against
// each reference, per kind of need, as a markdown table, and returns the
// comparisons of the first ranker (the shipped one) against the SKILL.md
// only reference by kind.
func logComparisons(t *testing.T, needs []corpusQuery, results []rankerResult) map[string]comparison {
	t.Helper()
	var b strings.Builder
	b.WriteString("\npaired per need (expected ids alone), bootstrap 95 % interval of ΔMRR@10:\n")
	b.WriteString("\n| ranker | against | kind | n | better | worse | equal | ΔMRR@10 | 95 % interval |\n|---|---|---|---|---|---|---|---|---|\n")
	var shipped map[string]comparison
	for i, r := range results {
		if r.name == bm25SkillFiles || r.name == bm25AllDocs {
			continue
		}
		for _, ref := range []string{bm25SkillFiles, bm25AllDocs} {
			base := resultNamed(t, results, ref)
			for _, k := range []string{"all", "easy", "paraphrase", "hard"} {
				c := compareRankers(needs, r.rr, base.rr, k)
				if c.n == 0 {
					continue
				}
				if i == 0 && ref == bm25SkillFiles {
					if shipped == nil {
						shipped = map[string]comparison{}
					}
					shipped[k] = c
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %+.3f | [%+.3f, %+.3f] |\n",
					r.name, ref, k, c.n, c.better, c.worse, c.equal, c.delta, c.lo, c.hi)
			}
		}
	}
	t.Log(b.String())
	return shipped
}

// TestCompareRankers checks the paired comparison on needs whose answer
// is known: a ranker ahead on every need has an interval above zero, and
// two equal rankers tie with a zero interval.
func TestCompareRankers(t *testing.T) {
	needs := make([]corpusQuery, 40)
	a, b := make([]float64, 40), make([]float64, 40)
	for i := range needs {
		needs[i].Kind = []string{"easy", "paraphrase"}[i%2]
		a[i], b[i] = 1, 0.5
	}
	c := compareRankers(needs, a, b, "all")
	if c.n != 40 || c.better != 40 || c.delta != 0.5 || c.lo != 0.5 || c.hi != 0.5 {
		t.Errorf("a ahead everywhere: %+v", c)
	}
	if c := compareRankers(needs, a, a, "paraphrase"); c.n != 20 || c.equal != 20 || c.delta != 0 || c.lo != 0 || c.hi != 0 {
		t.Errorf("a against itself: %+v", c)
	}
	b[0], b[1] = 1, 1 // tied on two needs, behind on the rest
	b[2] = 0
	if c := compareRankers(needs, a, b, "all"); c.better != 38 || c.equal != 2 || c.lo <= 0 || c.lo > c.delta || c.hi < c.delta {
		t.Errorf("a ahead on 38 of 40: %+v", c)
	}
	if again := compareRankers(needs, a, b, "all"); again != compareRankers(needs, a, b, "all") {
		t.Errorf("the interval moves between runs")
	}
}
