package search

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
)

func techStrength(t techThesaurus, a, b string) float64 {
	for _, r := range t[a] {
		if r.stem == b {
			return r.strength
		}
	}
	return 0
}

// The embedded file parses, and a pair's strength follows the word
// counts of its terms (docs/search.md).
func TestTechThesaurusTable(t *testing.T) {
	th := loadTech()
	if len(th) < 1000 {
		t.Fatalf("%d stems; the embedded thesaurus looks truncated", len(th))
	}
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"db", "databas", 1},
		{"k8s", "kubernet", 1},
		{"processor", "cpu", 1},
		{"cpu", "processor", 1},
		{"back", "revert", 0.5}, // "roll back", two words, whose head "back" is shared by "back out"
		{"roll", "revert", 0},   // … and "roll" is its modifier
	} {
		if got := techStrength(th, c.a, c.b); got != c.want {
			t.Errorf("%s → %s: strength %v, want %v", c.a, c.b, got, c.want)
		}
	}
	for s, rels := range th {
		if len(s) < 2 || len(rels) == 0 || len(rels) > techMaxRelated {
			t.Fatalf("stem %q with %d related stems", s, len(rels))
		}
		for i, r := range rels {
			if r.stem == s || r.strength <= 0 || r.strength > 1 || len(r.stem) < 2 ||
				(i > 0 && r.strength > rels[i-1].strength) {
				t.Fatalf("stem %q: related %v", s, rels)
			}
		}
	}
}

func TestParseTech(t *testing.T) {
	th, err := parseTech("# a comment\n\nDB, database, data store\nC#, csharp, .NET\nrestore, recovery, restore backup\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"db", "databas", 1},
		{"db", "store", 0.5},
		{"data", "store", 0}, // two stems of one term are not related
		{"csharp", "net", 1},
		{"c", "csharp", 0}, // one-letter stems are dropped
		{"restor", "recoveri", 1},
		{"backup", "recoveri", 0}, // "backup" only modifies "restore backup", whose head "restore" another term shares
		{"backup", "restor", 0},
	} {
		if got := techStrength(th, c.a, c.b); got != c.want {
			t.Errorf("%s → %s: strength %v, want %v", c.a, c.b, got, c.want)
		}
	}
	for _, bad := range []string{"lonely\n", "the, of\n", "word, ,\n"} {
		if _, err := parseTech(bad); err == nil {
			t.Errorf("%q parsed; want a group-of-one error", bad)
		}
	}
}

// An abbreviation or an engineer's word finds the skill written with the
// expansion, which neither the query's words nor WordNet reach.
func TestTechFindsExpansions(t *testing.T) {
	x := New()
	x.Update([]Doc{
		{ID: "ops/kubernetes-rollout", Title: "Roll out on Kubernetes", Body: "Apply the deployment and watch the pods."},
		{ID: "data/postgres-restore", Title: "Restore a database", Body: "Load the latest dump into Postgres."},
		{ID: "perf/cpu-hot-path", Title: "Find a CPU hot path", Body: "Record a profile and read the flame graph."},
		{ID: "docs/changelog", Title: "Write a changelog", Body: "List what changed for users since the last version."},
		{ID: "misc/filler", Title: "Plan a team offsite", Body: "Book a venue and send the agenda."},
	}, nil)
	for _, c := range []struct{ query, want string }{
		{"k8s", "ops/kubernetes-rollout"},
		{"db", "data/postgres-restore"},
		{"processor", "perf/cpu-hot-path"},
		{"release notes", "docs/changelog"},
	} {
		hits, _ := x.Search(c.query, 3)
		if len(hits) == 0 || hits[0].ID != c.want {
			t.Errorf("%q: %v; want %s first", c.query, hits, c.want)
		}
	}
}

// A document that says the query's word outranks one that says a stem
// the tech thesaurus relates to it at full strength, at the same
// frequency in the same fields.
func TestTechExpansionNeverOutranksTheExactWord(t *testing.T) {
	th := loadTech()
	var words []string
	for s := range th {
		if isWord(s) {
			words = append(words, s)
		}
	}
	slices.Sort(words)
	r := rand.New(rand.NewPCG(5, 6))
	filler := []Doc{
		{ID: "f1", Title: "Team offsite", Body: "Book a venue and send the agenda."},
		{ID: "f2", Title: "Garden", Body: "Water the plants every morning."},
	}
	for checked := 0; checked < 300; {
		word := words[r.IntN(len(words))]
		var rel []string
		for _, c := range th[word] {
			if c.strength == 1 && isWord(c.stem) {
				rel = append(rel, c.stem)
			}
		}
		if len(rel) == 0 {
			continue
		}
		other := rel[r.IntN(len(rel))]
		exactOutranksRelated(t, New(), slices.Clone(filler), word, other)
		checked++
	}
}

// BenchmarkTechThesaurus: the heap the parsed tech thesaurus holds, and
// the time to parse it.
//
//	go test -run '^$' -bench TechThesaurus -benchtime 5x ./internal/search/
func BenchmarkTechThesaurus(b *testing.B) {
	var keep []techThesaurus
	var took time.Duration
	grown := heapGrowth(func() {
		start := time.Now()
		for range b.N {
			th, err := parseTech(techTxt)
			if err != nil {
				b.Fatal(err)
			}
			keep = append(keep, th)
		}
		took = time.Since(start)
	})
	b.ReportMetric(float64(grown)/float64(b.N)/1024, "KB-heap")
	b.ReportMetric(float64(took.Microseconds())/float64(b.N)/1000, "ms-load")
	runtime.KeepAlive(keep)
}
