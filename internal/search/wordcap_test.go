package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The cap on a word's related stems (wordCap, docs/decisions.md D82).

// A skill that says many related stems of the need's word, and not the
// word, ranks below a skill that says the word, the same way: together a
// word's related stems weigh no more than the word. Without the cap the
// same test finds words whose related stems outrank the word, so it is
// the cap that holds the order. Half the cases fold a reference into each
// skill, so both ways SearchGroups scores (folded or not) are checked.
func TestRelatedStemsOfAWordWeighNoMoreThanTheWord(t *testing.T) {
	th := loadThesaurus()
	r := rand.New(rand.NewPCG(82, 1))
	checked, uncappedWins := 0, 0
	for checked < 200 {
		word, rel := randomWord(r, th)
		loadTech().related(word, func(s string, _ float64) {
			if isWord(s) && !slices.Contains(rel, s) {
				rel = append(rel, s)
			}
		})
		if len(rel) < 4 {
			continue
		}
		docs := []Doc{
			{ID: "exact", Title: "Notes", Body: "Steps for " + word + " in production."},
			{ID: "many", Title: "Notes", Body: "Steps for " + strings.Join(rel, " ") + " in production."},
			{ID: "filler", Title: "Kubernetes deploy", Body: "Roll out a new image with kubectl and watch the rollout."},
		}
		if checked%2 == 1 {
			docs = append(docs,
				Doc{ID: "exact/references/a", Parent: "exact", Body: "Nothing to see here."},
				Doc{ID: "many/references/a", Parent: "many", Body: "Nothing to see here."})
		}
		for _, capped := range []bool{true, false} {
			x := New()
			if !capped {
				x = New(withTuning(func(t *tuning) { t.wordCap = 0 }))
			}
			x.Update(docs, nil)
			hits, _ := x.SearchGroups(word, 3)
			at := func(id string) int { return slices.IndexFunc(hits, func(h Hit) bool { return h.ID == id }) }
			e, m := at("exact"), at("many")
			switch {
			case capped && (e != 0 || m < 0 || hits[m].Score >= hits[e].Score):
				t.Fatalf("query %q, related %v: %v; want exact above many", word, rel, hits)
			case !capped && m == 0:
				uncappedWins++
			}
		}
		checked++
	}
	if uncappedWins == 0 {
		t.Errorf("without the cap no word's related stems outrank it in %d cases: the test does not check the cap", checked)
	}
	t.Logf("without the cap, related stems outrank the word in %d of %d cases", uncappedWins, checked)
}

// The cap weighs skills only: a document's own score, which Search ranks
// by (group: false) and Matched lists by, is what it was before D82.
func TestWordCapLeavesDocumentScoresAlone(t *testing.T) {
	docs, queries := loadCorpus(t)
	indexed := map[string]bool{}
	for _, d := range docs {
		indexed[d.ID] = true
	}
	for i := range docs {
		docs[i].Parent = NearestSkill(docs[i].ID, func(id string) bool { return indexed[id] })
	}
	capped, uncapped := New(), New(withTuning(func(t *tuning) { t.wordCap = 0 }))
	capped.Update(docs, nil)
	uncapped.Update(docs, nil)
	listed := 0
	for _, q := range queries {
		got, gotN := capped.Search(q.Q, 10)
		want, wantN := uncapped.Search(q.Q, 10)
		if !slices.EqualFunc(got, want, func(a, b Hit) bool { return a.ID == b.ID && a.Score == b.Score }) || gotN != wantN {
			t.Fatalf("Search(%q) with the cap: %v (%d); without: %v (%d)", q.Q, got, gotN, want, wantN)
		}
		every, _ := uncapped.Search(q.Q, len(docs))
		groups, _ := capped.SearchGroups(q.Q, 10)
		for _, g := range groups {
			for _, m := range g.Matched {
				own := slices.IndexFunc(every, func(h Hit) bool { return h.ID == m.ID })
				listed++
				if own < 0 || every[own].Score != m.Score {
					t.Fatalf("%q: %s matched under %s with %v; without the cap it is %v", q.Q, m.ID, g.ID, m.Score, every)
				}
			}
		}
	}
	if listed == 0 {
		t.Error("no query matched a reference: Matched is not checked")
	}
}
