package search

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The embedded table loads, and relates what a reader would expect.
func TestThesaurusTable(t *testing.T) {
	th := loadThesaurus()
	related := func(s string) map[string]float64 {
		m := map[string]float64{}
		th.related(s, func(r string, w float64) { m[r] = w })
		return m
	}
	for _, c := range []struct{ from, to string }{
		{"invoic", "bill"},         // a synonym
		{"night", "dark"},          // a synonym of the first sense
		{"sluggish", "slow"},       // an adjective cluster
		{"stolen", "steal"},        // an irregular form and its base
		{"processor", "cpu"},       // a synonym in computing
		{"reconstruct", "rebuild"}, // both ways
	} {
		w, ok := related(c.from)[c.to]
		if !ok || w <= 0 || w > 1 {
			t.Errorf("%s → %s: %v, %v; want a weight in (0, 1]", c.from, c.to, w, ok)
		}
	}
	if r := related("5"); len(r) > 0 {
		t.Errorf("a number is expanded: %v", r)
	}
	if r := related("qwzx"); len(r) > 0 {
		t.Errorf("an unknown word is expanded: %v", r)
	}
	// No stem relates to itself, and weights are in (0, 1].
	for i := range th.ends {
		s := th.stem(i)
		if s == "" {
			t.Fatalf("stem %d is empty", i)
		}
		th.related(s, func(r string, w float64) {
			if r == s || w <= 0 || w > 1 {
				t.Fatalf("%s → %s weighs %v", s, r, w)
			}
		})
	}
}

// The table carries WordNet's licence notice, as its licence requires.
func TestTableCarriesTheWordNetNotice(t *testing.T) {
	n := Notices()
	for _, want := range []string{"WordNet 3.0 Copyright 2006 by Princeton University", "PROVIDED \"AS IS\""} {
		if !strings.Contains(n, want) {
			t.Errorf("the notice lacks %q:\n%s", want, n)
		}
	}
}

func TestParseThesaurusRejectsCorruptTables(t *testing.T) {
	if _, err := parseThesaurus([]byte("not gzip")); err == nil {
		t.Error("a table that is not gzip parsed")
	}
	gz := func(text string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(text))
		zw.Close()
		return b.Bytes()
	}
	th, err := parseThesaurus(gz("# a licence\n#\nbill 1:75\ninvoic 0:75 2:50\nstatement"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	th.related("invoic", func(s string, w float64) { got = append(got, fmt.Sprintf("%s:%.2f", s, w)) })
	if want := []string{"bill:0.75", "statement:0.50"}; !slices.Equal(got, want) {
		t.Errorf("invoic relates to %v, want %v", got, want)
	}
	for _, bad := range []string{
		"invoic 0:75\nbill 1:75\n", // out of order
		"bill 2:75\ninvoic 0:75\n", // no line 2
		"bill 1:0\ninvoic 0:75\n",  // weight 0
		"bill 1\ninvoic 0:75\n",    // no weight
		"bill\n\ninvoic\n",         // an empty line
	} {
		if _, err := parseThesaurus(gz(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A need worded with a synonym finds the skill that only has the other
// word; a skill that says the need's own word ranks above one that says
// only a related word, at the same strength.
func TestExpansionFindsSynonyms(t *testing.T) {
	docs := []Doc{
		{ID: "billing", Title: "Send a customer their bill", Body: "Generate the bill at month end and email it."},
		{ID: "dark-mode", Title: "Dark theme", Body: "Switch the palette to dark colours."},
		{ID: "unrelated", Title: "Rotate keys", Body: "Rotate the signing keys every quarter."},
	}
	x := New()
	x.Update(docs, nil)
	for _, c := range []struct{ query, want string }{
		{"customer invoice", "billing"}, // "invoice" is not in the index at all
		{"night palette", "dark-mode"},
	} {
		hits, _ := x.Search(c.query, 3)
		if len(hits) == 0 || hits[0].ID != c.want {
			t.Errorf("%q: %v, want %s first", c.query, hits, c.want)
		}
	}
	hits, _ := x.Search("invoice", 3)
	if len(hits) != 1 || hits[0].ID != "billing" {
		t.Errorf(`"invoice" alone: %v, want only billing (through "bill")`, hits)
	}
	literal := New(WithExpansion(false))
	literal.Update(docs, nil)
	if hits, _ := literal.Search("invoice", 3); len(hits) != 0 {
		t.Errorf(`without expansion "invoice" found %v`, hits)
	}
}

// For pairs of related stems drawn from the table: of two documents the
// same but for one saying the query's word and the other a related stem,
// the exact one ranks first. Every other time the word is also in the
// two neighbour documents, so it is commoner (lower idf) than the related
// stem: the related stem's idf is capped at the word's, or it would win.
func TestExpansionNeverOutranksTheExactWord(t *testing.T) {
	th := loadThesaurus()
	r := rand.New(rand.NewPCG(3, 4))
	filler := []Doc{
		{ID: "f1", Title: "Kubernetes deploy", Body: "Roll out a new image with kubectl and watch the rollout."},
		{ID: "f2", Title: "Postgres backup", Body: "Take a base backup and archive the write-ahead log."},
	}
	checked := 0
	for checked < 300 {
		word, rel := randomWord(r, th)
		if len(rel) == 0 {
			continue
		}
		other := rel[r.IntN(len(rel))]
		x := New()
		docs := slices.Clone(filler)
		if checked%2 == 1 {
			for i := range docs {
				docs[i].Body += " Mind the " + word + "."
			}
		}
		exactOutranksRelated(t, x, docs, word, other)
		checked++
	}
}

// isWord says whether a stem analyses to itself: then it can stand for a
// word in a text.
func isWord(s string) bool { return slices.Equal(Terms(s), []string{s}) }

// randomWord picks a stem of th at random that is a word (isWord), and
// its related stems that are words too.
func randomWord(r *rand.Rand, th *thesaurus) (word string, related []string) {
	for !isWord(word) {
		word = th.stem(r.IntN(len(th.ends)))
	}
	th.related(word, func(s string, _ float64) {
		if isWord(s) {
			related = append(related, s)
		}
	})
	return word, related
}

// exactOutranksRelated adds to docs one document that says word and one
// that says the related word other, the same way, and checks that a
// search for word ranks the first above the second.
func exactOutranksRelated(t *testing.T, x *Index, docs []Doc, word, other string) {
	t.Helper()
	docs = append(docs,
		Doc{ID: "exact", Title: "How to " + word, Body: "Steps for " + word + " in production."},
		Doc{ID: "related", Title: "How to " + other, Body: "Steps for " + other + " in production."},
	)
	x.Update(docs, nil)
	hits, _ := x.Search(word, 4)
	at := func(id string) int { return slices.IndexFunc(hits, func(h Hit) bool { return h.ID == id }) }
	if e, rel := at("exact"), at("related"); e != 0 || rel < 0 || hits[rel].Score >= hits[e].Score {
		t.Fatalf("query %q, related %q: %v; want exact above related", word, other, hits)
	}
}

// BenchmarkThesaurus reports the time to decompress and parse the
// embedded table, which the first search pays once per process, and the
// live heap it keeps.
//
//	go test -run '^$' -bench Thesaurus -benchtime 5x ./internal/search/
func BenchmarkThesaurus(b *testing.B) {
	var keep []*thesaurus
	var took time.Duration
	grown := heapGrowth(func() {
		start := time.Now()
		for range b.N {
			th, err := parseThesaurus(relatedGz)
			if err != nil {
				b.Fatal(err)
			}
			keep = append(keep, th)
		}
		took = time.Since(start)
	})
	b.ReportMetric(float64(grown)/float64(b.N)/1024, "KB-heap")
	b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "ms-load")
	runtime.KeepAlive(keep)
}
