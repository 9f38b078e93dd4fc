package search

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The third corpus (testdata/third/README.md): Agent Skills of public
// repositories used by neither the first corpus nor the public one, held
// out from designing the ranker, laid out by scripts/assemble-corpus.sh,
// and the needs of testdata/third/needs.json, written before any ranker
// ran on it. As with the public corpus the skills are not committed; the
// tests look for them in thirdSkillDirs. Nothing here ranks: the checks
// are of what is committed and of the needs against the skills served.

// thirdSkillDirs are where the third corpus's skills folder is looked
// for, in order: $SKILLS_THIRD_CORPUS, the local copy that
// scripts/assemble-corpus.sh lays out (ignored by git), and a copy in the
// shared folder beside the repository.
func thirdSkillDirs() []string {
	var dirs []string
	if d := os.Getenv("SKILLS_THIRD_CORPUS"); d != "" {
		dirs = append(dirs, d)
	}
	return append(dirs,
		filepath.Join("testdata", "third", "skills"),
		filepath.Join("..", "..", "..", "shared", "third-skills-corpus", "skills"))
}

var (
	thirdOnce   sync.Once
	thirdCorpus *evalCorpus
)

// loadThird loads the third corpus once per test binary; nil when no copy
// of its skills is found.
func loadThird(tb testing.TB) *evalCorpus {
	tb.Helper()
	thirdOnce.Do(func() {
		if d := firstDir(thirdSkillDirs()); d != "" {
			thirdCorpus = loadRoot(tb, d, filepath.Join("testdata", "third", "needs.json"))
		}
	})
	return thirdCorpus
}

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
	c := loadThird(t)
	if c == nil {
		t.Skipf("no copy of the third corpus's skills in %v (testdata/third/README.md says how to lay one out)", thirdSkillDirs())
	}
	checkServedNeeds(t, c, 250)
}
