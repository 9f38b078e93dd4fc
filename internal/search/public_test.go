package search

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// The public development corpus (testdata/public/README.md): Agent Skills
// of public repositories, laid out by scripts/assemble-corpus.sh, and the
// needs of testdata/public/needs.json. The skills are not committed (they
// are the sources' text, under their licences); the tests look for them
// in publicSkillDirs and skip what needs them when none is there. The
// checks of the needs' and sources' shape, and the figures of the first
// corpus, always run.

// publicCorpusFiles is where the public corpus's skills are looked for
// (uncommittedCorpus.dirs) and its needs.
var publicCorpusFiles = &uncommittedCorpus{name: "public", env: "SKILLS_PUBLIC_CORPUS", shared: "public-skills-corpus"}

// publicSkillDirs are where the public corpus's skills folder is looked
// for, in order.
func publicSkillDirs() []string { return publicCorpusFiles.dirs() }

// evalDoc is one served document: what the worker indexes and what the
// plain BM25 reference reads.
type evalDoc struct {
	id, name   string
	desc       string // the frontmatter description, else the body's first paragraph
	served     string // desc as the worker indexes it (cut to skillmd.MaxDescriptionRunes)
	body       string
	skillFile  bool
	codeBytes  int // bytes of the body inside ``` or ~~~ fences
	totalBytes int
}

// evalCorpus is a root's documents, its needs and what fsource skipped.
type evalCorpus struct {
	docs     []evalDoc
	byID     map[string]*evalDoc
	needs    []corpusQuery
	skips    []fsource.Skip // files fsource left out
	warnings []fsource.Skip // files served with a warning
}

// loadRoot reads a folder of Agent Skills as the worker serves it (a
// root), each document as registry's search index reads it.
func loadRoot(tb testing.TB, dir, needsFile string) *evalCorpus {
	tb.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	skills, skips := fsource.New(filepath.Dir(abs), nil, nil, fsource.Roots(filepath.Base(abs))).Skills()
	c := &evalCorpus{byID: map[string]*evalDoc{}}
	for _, sk := range skips {
		if sk.Warning {
			c.warnings = append(c.warnings, sk)
		} else {
			c.skips = append(c.skips, sk)
		}
	}
	for _, sk := range skills {
		raw, err := os.ReadFile(sk.Path)
		if err != nil {
			tb.Fatal(err)
		}
		d := skillmd.Parse(string(raw))
		sum := skillmd.Summarize(sk.ID, d)
		desc := d.Description
		if desc == "" {
			desc = sum.Desc
		}
		c.docs = append(c.docs, evalDoc{id: sk.ID, name: d.Name, desc: desc, served: sum.Description(),
			body: d.Body, skillFile: sk.SkillFile, codeBytes: fencedBytes(d.Body), totalBytes: len(d.Body)})
	}
	for i := range c.docs {
		c.byID[c.docs[i].id] = &c.docs[i]
	}
	c.needs = readNeeds(tb, needsFile)
	return c
}

// readNeeds reads a file of needs in the shape of queries.json.
func readNeeds(tb testing.TB, file string) []corpusQuery {
	tb.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	var needs []corpusQuery
	if err := json.Unmarshal(raw, &needs); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return needs
}

// fencedBytes counts the bytes of body's lines inside code fences,
// fence lines included.
func fencedBytes(body string) int {
	n, fence := 0, ""
	for _, line := range strings.SplitAfter(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			n += len(line)
		case fence != "":
			n += len(line)
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		}
	}
	return n
}

// loadPublic loads the public corpus once per test binary; nil when no
// copy of its skills is found.
func loadPublic(tb testing.TB) *evalCorpus { return publicCorpusFiles.load(tb) }

// bm25 is the plain reference ranker: lower-cased runs of letters and
// digits, no stemming, no stop words; name and description counted three
// times, the body once, as one field; k1 1.2, b 0.75.
type bm25 struct {
	ids      []string
	postings map[string][]bm25Posting
	length   []float64
	avg      float64
}

type bm25Posting struct {
	doc int
	tf  float64
}

// plainWords splits text into lower-case runs of letters and digits.
func plainWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// newBM25 indexes the documents keep accepts. A document's length is its
// weighted term count (a name or description word counts three).
func newBM25(docs []evalDoc, keep func(evalDoc) bool) *bm25 {
	x := &bm25{postings: map[string][]bm25Posting{}}
	total := 0.0
	for _, d := range docs {
		if !keep(d) {
			continue
		}
		tf := map[string]float64{}
		for _, w := range plainWords(d.name + " " + d.desc) {
			tf[w] += 3
		}
		n := 0.0
		for _, w := range plainWords(d.body) {
			tf[w]++
		}
		for _, v := range tf {
			n += v
		}
		slot := len(x.ids)
		x.ids = append(x.ids, d.id)
		x.length = append(x.length, n)
		total += n
		for w, v := range tf {
			x.postings[w] = append(x.postings[w], bm25Posting{slot, v})
		}
	}
	x.avg = total / float64(len(x.ids))
	return x
}

// search ranks the documents for q's distinct words by BM25, ties broken
// by id, and returns the best limit ids.
func (x *bm25) search(q string, limit int) []string {
	const k1, b = 1.2, 0.75
	score := map[int]float64{}
	seen := map[string]bool{}
	for _, w := range plainWords(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		ps := x.postings[w]
		if len(ps) == 0 {
			continue
		}
		n, df := float64(len(x.ids)), float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			score[p.doc] += idf * p.tf * (k1 + 1) / (p.tf + k1*(1-b+b*x.length[p.doc]/x.avg))
		}
	}
	slots := make([]int, 0, len(score))
	for s := range score {
		slots = append(slots, s)
	}
	sort.Slice(slots, func(i, j int) bool {
		if score[slots[i]] != score[slots[j]] {
			return score[slots[i]] > score[slots[j]]
		}
		return x.ids[slots[i]] < x.ids[slots[j]]
	})
	if len(slots) > limit {
		slots = slots[:limit]
	}
	out := make([]string, len(slots))
	for i, s := range slots {
		out[i] = x.ids[s]
	}
	return out
}

// rankerResult is one ranker's figures by kind of need: res counts a hit
// only on an expected id; skill also counts one on any document under an
// expected skill (its references), so that the two tell a reference that
// crowds out its own SKILL.md from a wrong skill.
type rankerResult struct {
	name       string
	res, skill map[string]*scores
	rr         []float64 // per need, in the needs' order: 1/rank of the first expected id in the top 10, else 0
}

// evaluateBoth runs every query once and scores the ranking twice: a hit
// on an expected id, and a hit on any id at or under one. rr is each
// need's reciprocal rank of an expected id (0 when none is in the top
// 10), for the paired comparisons (compare_test.go).
func evaluateBoth(queries []corpusQuery, search searcher) (exact, under map[string]*scores, rr []float64) {
	exact, under = map[string]*scores{"all": {}}, map[string]*scores{"all": {}}
	rr = make([]float64, len(queries))
	for i, q := range queries {
		ids := search(q.Q, 10)
		for _, m := range []struct {
			out map[string]*scores
			hit func(id string) bool
		}{
			{exact, func(id string) bool { return slices.Contains(q.Expect, id) }},
			{under, func(id string) bool {
				return slices.ContainsFunc(q.Expect, func(e string) bool { return id == e || strings.HasPrefix(id, e+"/") })
			}},
		} {
			if m.out[q.Kind] == nil {
				m.out[q.Kind] = &scores{}
			}
			rank := slices.IndexFunc(ids, m.hit)
			if rank >= 0 && m.out["all"] == exact["all"] {
				rr[i] = 1 / float64(rank+1)
			}
			for _, s := range []*scores{m.out["all"], m.out[q.Kind]} {
				s.n++
				if rank < 0 {
					continue
				}
				if rank == 0 {
					s.recall1++
				}
				if rank < 5 {
					s.recall5++
				}
				s.recall10++
				s.mrr += 1 / float64(rank+1)
			}
		}
	}
	return exact, under, rr
}

// rankAll ranks c's needs with the shipped index fed as the worker feeds
// it (whole descriptions, results grouped by skill; also flat), the plain
// BM25 reference over every document, and the same BM25 over the SKILL.md
// documents alone. SEARCH_TRIAL=1 adds the trials of docs/search.md.
func rankAll(c *evalCorpus) []rankerResult {
	var shipped *Index
	index := func(desc func(evalDoc) string, opts ...Option) *Index { return indexCorpus(c, desc, opts...) }
	type ranker struct {
		name  string
		build func() searcher
	}
	rankers := []ranker{
		{"skill::search", func() searcher {
			shipped = index(func(d evalDoc) string { return d.desc })
			return groupSearcher(shipped)
		}},
		{"skill::search, flat", func() searcher { return ownSearcher(shipped) }},
	}
	if os.Getenv("SEARCH_TRIAL") != "" {
		for _, v := range []struct {
			name string
			opts []Option
		}{{"no WordNet", []Option{WithWordNet(false)}}, {"no expansion", []Option{WithExpansion(false)}}} {
			rankers = append(rankers, ranker{"skill::search, " + v.name, func() searcher {
				return groupSearcher(index(func(d evalDoc) string { return d.desc }, v.opts...))
			}})
		}
		for _, v := range []struct {
			name string
			t    func(*tuning)
		}{
			{"body against the average (before D80)", func(t *tuning) { t.bodyPivot = 0 }},
			{"pivot 150", func(t *tuning) { t.bodyPivot = 150 }},
			{"pivot 600", func(t *tuning) { t.bodyPivot = 600 }},
			{"references 0.15", func(t *tuning) { t.refWeight = 0.15 }},
			{"references 0.6", func(t *tuning) { t.refWeight = 0.6 }},
			{"no stemming", func(t *tuning) { t.noStem = true }},
			{"cap per word (D82, not kept)", func(t *tuning) { t.wordCap = 1 }},
		} {
			rankers = append(rankers, ranker{"skill::search, " + v.name, func() searcher {
				return groupSearcher(index(func(d evalDoc) string { return d.desc }, withTuning(v.t)))
			}})
		}
		rankers = append(rankers, ranker{"skill::search, no stemming, no expansion", func() searcher {
			return groupSearcher(index(func(d evalDoc) string { return d.desc }, WithExpansion(false),
				withTuning(func(t *tuning) { t.noStem = true })))
		}})
		rankers = append(rankers, ranker{"skill::search, descriptions cut as listed", func() searcher {
			return groupSearcher(index(func(d evalDoc) string { return d.served }))
		}})
	}
	rankers = append(rankers,
		ranker{bm25AllDocs, func() searcher { return newBM25(c.docs, func(evalDoc) bool { return true }).search }},
		ranker{bm25SkillFiles, func() searcher { return newBM25(c.docs, func(d evalDoc) bool { return d.skillFile }).search }})
	var out []rankerResult
	for _, r := range rankers {
		exact, under, rr := evaluateBoth(c.needs, r.build())
		out = append(out, rankerResult{r.name, exact, under, rr})
	}
	return out
}

// indexCorpus indexes c's documents as the worker feeds them, each
// document's description as desc gives it and its parent the nearest
// SKILL.md above it.
func indexCorpus(c *evalCorpus, desc func(evalDoc) string, opts ...Option) *Index {
	isSkill := func(id string) bool { d := c.byID[id]; return d != nil && d.skillFile }
	docs := make([]Doc, 0, len(c.docs))
	for _, d := range c.docs {
		doc := DocOf(d.id, d.name, desc(d), d.body)
		doc.Parent = NearestSkill(d.id, isSkill)
		docs = append(docs, doc)
	}
	x := New(opts...)
	x.Update(docs, nil)
	return x
}

// withTuning changes the ranking's parameters from the shipped ones, for
// the trials.
func withTuning(change func(*tuning)) Option {
	return func(x *Index) {
		x.tuning = defaultTuning
		change(&x.tuning)
	}
}

// logTable logs the figures as a markdown table: first the expected ids
// alone, then any document of an expected skill.
func logTable(t *testing.T, results []rankerResult) {
	t.Helper()
	var b strings.Builder
	for _, under := range []bool{false, true} {
		if under {
			b.WriteString("\na hit on any document under an expected id counts:\n")
		}
		b.WriteString("\n| ranker | kind | n | R@1 | R@5 | R@10 | MRR@10 |\n|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			res := r.res
			if under {
				res = r.skill
			}
			for _, k := range []string{"all", "easy", "paraphrase", "hard"} {
				if s := res[k]; s != nil {
					fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f |\n", r.name, k, s.n, s.r1(), s.r5(), s.r10(), s.mrr10())
				}
			}
		}
	}
	t.Log(b.String())
}

type floor struct {
	kind, metric string
	got, min     float64
}

func checkFloors(t *testing.T, name string, floors []floor) {
	t.Helper()
	for _, f := range floors {
		if f.got < f.min {
			t.Errorf("%s: %s %s = %.3f, below the floor %.2f", name, f.kind, f.metric, f.got, f.min)
		}
	}
}

// TestCorpusReference ranks testdata/corpus with the shipped ranker and
// the plain BM25 reference in one run, as TestPublicRanking does the
// public corpus. The floors are today's figures rounded down, not goals.
func TestCorpusReference(t *testing.T) {
	c := loadRoot(t, filepath.Join("testdata", "corpus", "skills"), filepath.Join("testdata", "corpus", "queries.json"))
	if len(c.skips) > 0 {
		t.Fatalf("corpus files skipped: %v", c.skips)
	}
	results := rankAll(c)
	logTable(t, results)
	logComparisons(t, c.needs, results)
	// Today's figures of the ranker as the worker feeds it, rounded down: floors against a regression, not goals.
	ship := results[0].res
	checkFloors(t, "skill::search", []floor{
		{"all", "recall@1", ship["all"].r1(), 0.76},
		{"all", "recall@5", ship["all"].r5(), 0.90},
		{"all", "MRR@10", ship["all"].mrr10(), 0.82},
		{"paraphrase", "recall@5", ship["paraphrase"].r5(), 0.78},
		{"paraphrase", "MRR@10", ship["paraphrase"].mrr10(), 0.62},
	})
}

// TestPublicRanking ranks the public corpus's needs with the shipped
// ranker, the plain BM25 reference over every served document, and the
// same BM25 over the SKILL.md documents alone. The floors are the shipped
// ranker's figures of today (see BENCHMARKS.md), rounded down: they catch
// a regression; they are not goals.
func TestPublicRanking(t *testing.T) {
	c := loadPublic(t)
	if c == nil {
		t.Skipf("no copy of the public corpus's skills in %v (testdata/public/README.md says how to lay one out)", publicSkillDirs())
	}
	results := rankAll(c)
	logTable(t, results)
	vsSkillFiles := logComparisons(t, c.needs, results)
	// Today's figures (2026-12-02, skill-level BM25F, D80), rounded down:
	// floors against a regression, not goals.
	ship := results[0].res
	checkFloors(t, "skill::search", []floor{
		{"all", "recall@1", ship["all"].r1(), 0.80},
		{"all", "recall@5", ship["all"].r5(), 0.96},
		{"all", "MRR@10", ship["all"].mrr10(), 0.87},
		{"paraphrase", "recall@1", ship["paraphrase"].r1(), 0.77},
		{"paraphrase", "recall@5", ship["paraphrase"].r5(), 0.95},
		{"paraphrase", "MRR@10", ship["paraphrase"].mrr10(), 0.84},
		{"easy", "recall@5", ship["easy"].r5(), 1.00},
		{"hard", "recall@5", ship["hard"].r5(), 0.95},
	})
	// Issue 30's bar: ahead of BM25 over the SKILL.md files by at least
	// 0.03 MRR@10 with the 95 % interval above zero, and not behind it at
	// recall@5.
	ahead := vsSkillFiles["all"]
	if ahead.delta < 0.03 || ahead.lo <= 0 {
		t.Errorf("against %s: ΔMRR@10 %+.3f [%+.3f, %+.3f]; want at least +0.03 with the interval above zero", bm25SkillFiles, ahead.delta, ahead.lo, ahead.hi)
	}
	checkRecall5NotBehind(t, results)
}

// TestPublicNeedsShape checks what is committed of the public corpus,
// without its skills (checkNeedsShape).
func TestPublicNeedsShape(t *testing.T) {
	checkNeedsShape(t, filepath.Join("testdata", "public"))
}

// TestPublicCorpus checks the corpus against its needs (checkServedNeeds)
// and logs the totals that testdata/public/README.md reports.
func TestPublicCorpus(t *testing.T) {
	c := loadPublic(t)
	if c == nil {
		t.Skipf("no copy of the public corpus's skills in %v", publicSkillDirs())
	}
	checkServedNeeds(t, c, 400)
}

// longWords are the words of five letters or more of text, lower-cased.
func longWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range plainWords(text) {
		if len([]rune(w)) >= 5 {
			out[w] = true
		}
	}
	return out
}

func lastSegmentOf(id string) string { return id[strings.LastIndex(id, "/")+1:] }

// skillOf is the id of the skill that serves the reference document id:
// the longest served SKILL.md id that prefixes it.
func skillOf(c *evalCorpus, id string) string {
	best := ""
	for _, d := range c.docs {
		if d.skillFile && strings.HasPrefix(id, d.id+"/") && len(d.id) > len(best) {
			best = d.id
		}
	}
	return best
}
