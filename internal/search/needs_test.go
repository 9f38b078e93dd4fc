package search

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/iii-hq/skills-go/internal/ids"
)

// The checks every corpus of public Agent Skills passes, the public one
// (testdata/public/README.md) and the third (testdata/third/README.md):
// what is committed of it (its sources and needs), and, where a copy of
// its skills is found, that the needs fit the skills served. None of them
// ranks anything.

// uncommittedCorpus is a corpus of public Agent Skills whose skills are
// not committed (they are the sources' text, under their licences): where
// a copy of them is looked for, and its needs.
type uncommittedCorpus struct {
	name   string // its folder under testdata: "public"
	env    string // the variable that can name a copy: "SKILLS_PUBLIC_CORPUS"
	shared string // its folder in the shared folder beside the repository

	once   sync.Once
	loaded *evalCorpus
}

// dirs are where the corpus's skills folder is looked for, in order: the
// folder $env names, the local copy that scripts/assemble-corpus.sh lays
// out in testdata/<name>/skills (ignored by git), and
// ../shared/<shared>/skills beside the repository.
func (u *uncommittedCorpus) dirs() []string {
	var dirs []string
	if d := os.Getenv(u.env); d != "" {
		dirs = append(dirs, d)
	}
	return append(dirs,
		filepath.Join("testdata", u.name, "skills"),
		filepath.Join("..", "..", "..", "shared", u.shared, "skills"))
}

// load loads the corpus from the first of dirs that is a folder, once per
// test binary; nil when none is.
func (u *uncommittedCorpus) load(tb testing.TB) *evalCorpus {
	tb.Helper()
	u.once.Do(func() {
		for _, d := range u.dirs() {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				u.loaded = loadRoot(tb, d, filepath.Join("testdata", u.name, "needs.json"))
				return
			}
		}
	})
	return u.loaded
}

// corpusSource is one line of a corpus's sources.tsv.
type corpusSource struct {
	short, repo, commit, spdx, licences, include string
}

// readSources reads dir/sources.tsv, reporting each line that is not a
// short name, a repository, a 40-hex commit, an SPDX licence, licence
// files and an include pattern.
func readSources(t *testing.T, dir string) []corpusSource {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "sources.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusSource
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 6 || len(f[2]) != 40 || strings.Trim(f[2], "0123456789abcdef") != "" || f[3] == "" || f[4] == "" {
			t.Errorf("%s/sources.tsv line %d: want short name, repository, 40-hex commit, SPDX licence, licence files, include pattern: %q", dir, i+2, line)
			continue
		}
		out = append(out, corpusSource{f[0], f[1], f[2], f[3], f[4], f[5]})
	}
	return out
}

// checkNeedsShape checks what is committed of the corpus in dir, without
// its skills: at least 120 needs, two thirds of them paraphrases, each
// once, of a known kind, expecting well-formed ids of the listed sources;
// at least three sources, each with a commit and a licence.
func checkNeedsShape(t *testing.T, dir string) {
	t.Helper()
	sources := map[string]bool{}
	for _, s := range readSources(t, dir) {
		sources[s.short] = true
	}
	if len(sources) < 3 {
		t.Errorf("%d sources; at least 3", len(sources))
	}
	needs := readNeeds(t, filepath.Join(dir, "needs.json"))
	kinds := map[string]int{}
	seen := map[string]bool{}
	for _, n := range needs {
		kinds[n.Kind]++
		if seen[n.Q] {
			t.Errorf("need %q twice", n.Q)
		}
		seen[n.Q] = true
		if !slices.Contains([]string{"easy", "paraphrase", "hard"}, n.Kind) {
			t.Errorf("need %q: kind %q", n.Q, n.Kind)
		}
		if len(n.Expect) == 0 {
			t.Errorf("need %q expects nothing", n.Q)
		}
		for _, id := range n.Expect {
			src, _, _ := strings.Cut(id, "/")
			if err := ids.ValidateSkillID(id); err != nil || !sources[src] {
				t.Errorf("need %q expects %q: not an id of a listed source", n.Q, id)
			}
		}
	}
	if len(needs) < 120 || 3*kinds["paraphrase"] < 2*len(needs) {
		t.Errorf("%d needs, %d paraphrases: at least 120, two thirds paraphrases", len(needs), kinds["paraphrase"])
	}
}

// checkServedNeeds checks a loaded corpus against its needs: at least
// minSkills skills from at least 3 sources, every expected id served, and
// a paraphrase shares no word of five letters or more with its skill's
// name (or folder) and at most two with its description. It logs the
// totals its README reports.
func checkServedNeeds(t *testing.T, c *evalCorpus, minSkills int) {
	t.Helper()
	for _, sk := range c.skips {
		t.Logf("skipped by fsource: %s: %s", sk.Path, sk.Reason)
	}
	for _, sk := range c.warnings {
		t.Logf("served with a warning: %s: %s", sk.Path, sk.Reason)
	}
	// Totals, per source (the first segment of an id).
	type tally struct{ skills, refs, words, bytes, code int }
	per := map[string]*tally{}
	var sum tally
	for _, d := range c.docs {
		src, _, _ := strings.Cut(d.id, "/")
		if per[src] == nil {
			per[src] = &tally{}
		}
		for _, tl := range []*tally{per[src], &sum} {
			if d.skillFile {
				tl.skills++
			} else {
				tl.refs++
			}
			tl.words += len(strings.Fields(d.body))
			tl.bytes += d.totalBytes
			tl.code += d.codeBytes
		}
	}
	var b strings.Builder
	b.WriteString("\n| source | skills | reference files | documents | mean body words | code-fence share |\n|---|---|---|---|---|---|\n")
	srcs := make([]string, 0, len(per))
	for s := range per {
		srcs = append(srcs, s)
	}
	slices.Sort(srcs)
	row := func(name string, tl *tally) {
		docs := tl.skills + tl.refs
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.0f %% |\n", name, tl.skills, tl.refs, docs,
			tl.words/docs, 100*float64(tl.code)/float64(tl.bytes))
	}
	for _, s := range srcs {
		row(s, per[s])
	}
	row("total", &sum)
	kinds := map[string]int{}
	for _, n := range c.needs {
		kinds[n.Kind]++
	}
	fmt.Fprintf(&b, "\nneeds: %d (%d easy, %d paraphrase, %d hard); fsource skipped %d files and warned of %d\n",
		len(c.needs), kinds["easy"], kinds["paraphrase"], kinds["hard"], len(c.skips), len(c.warnings))
	t.Log(b.String())

	if sum.skills < minSkills || len(srcs) < 3 {
		t.Errorf("%d skills from %d sources; the corpus needs at least %d from at least 3", sum.skills, len(srcs), minSkills)
	}
	descShared := map[int]int{}
	for _, n := range c.needs {
		for _, id := range n.Expect {
			if c.byID[id] == nil {
				t.Errorf("need %q expects %s, which is not served", n.Q, id)
			}
		}
		if len(n.Expect) == 0 || n.Kind != "paraphrase" {
			continue // checkNeedsShape reports a need that expects nothing
		}
		skill := c.byID[n.Expect[0]]
		if skill != nil && !skill.skillFile {
			skill = c.byID[skillOf(c, skill.id)]
		}
		if skill == nil {
			continue
		}
		q := longWords(n.Q)
		for w := range longWords(strings.ReplaceAll(skill.name+" "+lastSegmentOf(skill.id), "-", " ")) {
			if q[w] {
				t.Errorf("paraphrase %q shares %q with the name of %s", n.Q, w, skill.id)
			}
		}
		var shared []string
		for w := range longWords(skill.desc) {
			if q[w] {
				shared = append(shared, w)
			}
		}
		descShared[len(shared)]++
		if len(shared) > 2 {
			slices.Sort(shared)
			t.Errorf("paraphrase %q shares %d words of five letters or more (%v) with the description of %s", n.Q, len(shared), shared, skill.id)
		}
	}
	t.Logf("paraphrases by words (five letters or more) shared with the expected skill's description: %v", descShared)
}
