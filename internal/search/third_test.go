package search

import (
	"path/filepath"
	"testing"
)

// The third corpus (testdata/third/README.md): Agent Skills of public
// repositories used by neither the first corpus nor the public one, held
// out from designing the ranker, laid out by scripts/assemble-corpus.sh,
// and the needs of testdata/third/needs.json, written before any ranker
// ran on it. As with the public corpus the skills are not committed; the
// tests look for them where thirdCorpusFiles says. Nothing here ranks:
// the checks are of what is committed and of the needs against the skills
// served.

// thirdCorpusFiles is where the third corpus's skills are looked for
// (uncommittedCorpus.dirs: $SKILLS_THIRD_CORPUS, testdata/third/skills,
// ../shared/third-skills-corpus/skills) and its needs.
var thirdCorpusFiles = &uncommittedCorpus{name: "third", env: "SKILLS_THIRD_CORPUS", shared: "third-skills-corpus"}

// TestThirdNeedsShape checks what is committed of the third corpus,
// without its skills (checkNeedsShape), and that it is held out: none of
// its sources is a repository of the public corpus, and no two of its
// sources share a name or a repository.
func TestThirdNeedsShape(t *testing.T) {
	dir := filepath.Join("testdata", "third")
	checkNeedsShape(t, dir)
	public := map[string]bool{}
	for _, s := range readSources(t, filepath.Join("testdata", "public")) {
		public[s.repo] = true
	}
	names, repos := map[string]bool{}, map[string]bool{}
	for _, s := range readSources(t, dir) {
		if public[s.repo] {
			t.Errorf("third corpus source %s is %s, a repository of the public corpus; the third corpus is held out", s.short, s.repo)
		}
		if names[s.short] || repos[s.repo] {
			t.Errorf("third corpus source %s (%s) is listed twice", s.short, s.repo)
		}
		names[s.short], repos[s.repo] = true, true
	}
}

// TestThirdCorpus checks the third corpus against its needs
// (checkServedNeeds: every expected id served, paraphrases clear of the
// skill's own words) and logs the totals that testdata/third/README.md
// reports. It ranks nothing.
func TestThirdCorpus(t *testing.T) {
	c := thirdCorpusFiles.load(t)
	if c == nil {
		t.Skipf("no copy of the third corpus's skills in %v (testdata/third/README.md says how to lay one out)", thirdCorpusFiles.dirs())
	}
	checkServedNeeds(t, c, 250)
}

// TestThirdRanking ranks the third corpus's needs as TestPublicRanking
// ranks the public one's. The third corpus is validation only
// (docs/search.md#the-third-corpus-held-out): its figures were read on
// the ranker shipped before D80, on D80's design and on D82's cap per word
// (not kept), each chosen on the first two corpora, never while designing.
func TestThirdRanking(t *testing.T) {
	c := thirdCorpusFiles.load(t)
	if c == nil {
		t.Skipf("no copy of the third corpus's skills in %v (testdata/third/README.md says how to lay one out)", thirdCorpusFiles.dirs())
	}
	results := rankAll(c)
	logTable(t, results)
	logComparisons(t, c.needs, results)
	// The figures of the design read once (2026-12-02, D80), rounded down:
	// floors against a regression, not goals. Issue 30's bar (+0.03
	// MRR@10 over BM25 on the SKILL.md files, interval above zero) is not
	// reached here (docs/search.md), so it is not asserted.
	ship := results[0].res
	checkFloors(t, "skill::search", []floor{
		{"all", "recall@1", ship["all"].r1(), 0.69},
		{"all", "recall@5", ship["all"].r5(), 0.88},
		{"all", "MRR@10", ship["all"].mrr10(), 0.77},
		{"paraphrase", "recall@5", ship["paraphrase"].r5(), 0.86},
		{"paraphrase", "MRR@10", ship["paraphrase"].mrr10(), 0.74},
		{"easy", "recall@5", ship["easy"].r5(), 1.00},
	})
	checkRecall5NotBehind(t, results)
}
