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

// SearchGroups folds a document into its topmost indexed skill ancestor,
// scores the group as one document whose references are a field of it
// (D80) and lists the nested matches best first, each with its own score
// as Search gives it; a parent that is not indexed leaves the document on
// its own, and removing a parent unfolds its documents.
func TestSearchGroups(t *testing.T) {
	isSkill := func(id string) bool { return id == "ops" || id == "ops/dns" || id == "gone" }
	doc := func(id, body string) Doc {
		d := DocOf(id, "", "", body)
		d.Parent = NearestSkill(id, isSkill)
		return d
	}
	x := New(WithExpansion(false))
	x.Update([]Doc{
		doc("ops", "operations handbook"),
		doc("ops/dns", "dns records"),
		doc("ops/dns/references/ttl", "lower the ttl of dns records before a migration"),
		doc("gone/references/ttl", "ttl ttl"),
		doc("web", "a web page"),
	}, nil)
	if p := NearestSkill("ops/dns/references/ttl", isSkill); p != "ops/dns" {
		t.Errorf("NearestSkill = %q, want ops/dns", p)
	}
	hits, total := x.SearchGroups("dns ttl", 10)
	var got []string
	for _, h := range hits {
		got = append(got, h.ID)
		for _, m := range h.Matched {
			got = append(got, "  "+m.ID)
		}
	}
	want := []string{"ops", "  ops/dns/references/ttl", "  ops/dns", "gone/references/ttl"}
	if total != 2 || !slices.Equal(got, want) {
		t.Errorf("grouped = %q (total %d), want %q (total 2)", got, total, want)
	}
	flat, _ := x.Search("dns ttl", 10)
	own := map[string]float64{}
	for _, h := range flat {
		own[h.ID] = h.Score
	}
	for _, h := range hits {
		for _, m := range h.Matched {
			if m.Score != own[m.ID] {
				t.Errorf("%s listed under %s with score %v, want its own %v", m.ID, h.ID, m.Score, own[m.ID])
			}
		}
	}
	x.Update(nil, []string{"ops"})
	hits, _ = x.SearchGroups("dns ttl", 10)
	if len(hits) != 2 || hits[0].ID != "ops/dns" || len(hits[0].Matched) != 1 {
		t.Errorf("after removing ops: %+v", hits)
	}
}

// On every query of the corpus, with related stems, a reference listed
// under a skill carries the score the flat ranking (group: false) gives
// it: SearchGroups keeps a document's own score only for the nested ones
// (D82's speed-up), and it must be that same score.
func TestMatchedScoresAreTheDocumentsOwn(t *testing.T) {
	docs, queries := loadCorpus(t)
	indexed := map[string]bool{}
	for _, d := range docs {
		indexed[d.ID] = true
	}
	for i := range docs {
		docs[i].Parent = NearestSkill(docs[i].ID, func(id string) bool { return indexed[id] })
	}
	x := New()
	x.Update(docs, nil)
	listed := 0
	for _, q := range queries {
		every, _ := x.Search(q.Q, len(docs))
		own := map[string]float64{}
		for _, h := range every {
			own[h.ID] = h.Score
		}
		groups, _ := x.SearchGroups(q.Q, 10)
		for _, g := range groups {
			for _, m := range g.Matched {
				listed++
				if s, ok := own[m.ID]; !ok || s != m.Score {
					t.Fatalf("%q: %s listed under %s with %v; the flat ranking gives it %v (%v)", q.Q, m.ID, g.ID, m.Score, s, ok)
				}
			}
		}
	}
	if listed == 0 {
		t.Error("no query listed a reference under its skill: nothing was checked")
	}
}
