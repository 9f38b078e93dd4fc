package search

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/search/embedtest"
)

// The skills of the embedder tests, and the concepts the test embedder
// gives their words and a paraphrase's: "dues paperwork for members"
// shares no word with billing/invoices.
var (
	embedSkills = map[string]string{
		"billing/invoices": "# Quarterly invoices\n\nSend the quarterly invoices to every customer.",
		"ops/restore":      "# Restore a database\n\nBring a postgres database back from its nightly dump.",
		"ops/rotate":       "# Rotate credentials\n\nReplace leaked keys.",
	}
	embedConcepts = [][]string{
		{"invoices", "paperwork"},
		{"customer", "members"},
		{"dues", "quarterly"},
		{"database", "postgres", "datastore"},
		{"dump", "snapshot"},
	}
	paraphrase = "dues paperwork for members"
)

// embedFunc adapts a function to Embedder.
type embedFunc func(ctx context.Context, texts []string) ([][]float32, error)

func (f embedFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}

// switchable is the concept embedder unless a test swaps in a bad answer,
// and records every text it was asked to embed.
type switchable struct {
	good *embedtest.Concepts
	mu   sync.Mutex
	bad  embedFunc
	seen []string
}

func (e *switchable) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	bad := e.bad
	e.seen = append(e.seen, texts...)
	e.mu.Unlock()
	if bad != nil {
		return bad(ctx, texts)
	}
	return e.good.Embed(ctx, texts)
}

func (e *switchable) set(bad embedFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.bad = bad
}

// asked returns and forgets the texts asked for.
func (e *switchable) asked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := e.seen
	e.seen = nil
	return seen
}

// embedRig is one view of stored skills searched twice: by a Searcher
// without an embedder, the reference a fallback must equal, and by one
// with the switchable embedder, whose Follow runs until the test ends.
// Build it inside a synctest bubble.
type embedRig struct {
	view    *catalog.View
	plain   *Searcher
	fused   *Searcher
	emb     *switchable
	logs    *observer.ObservedLogs
	stopped func()
}

func newEmbedRig(t *testing.T) *embedRig {
	t.Helper()
	skills := catalog.NewSkillsScope("skills", 1<<20)
	skills.BeginLoad()
	skills.EndLoad(nil)
	view := catalog.NewView(catalog.ViewConfig{Skills: skills, Caller: catalogtest.NewState(), SkillsScope: "skills", Timeout: time.Second})
	core, logs := observer.New(zapcore.InfoLevel)
	r := &embedRig{view: view, plain: NewSearcher(SearcherConfig{View: view}), emb: &switchable{good: embedtest.NewConcepts(embedConcepts...)}, logs: logs}
	r.fused = NewSearcher(SearcherConfig{View: view, Embedder: r.emb, EmbedderName: "test::embed", Logger: zap.New(core)})
	for _, id := range slices.Sorted(mapKeys(embedSkills)) {
		r.put(t, id, embedSkills[id])
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.fused.Follow(ctx)
	}()
	r.stopped = func() { cancel(); <-done }
	t.Cleanup(r.stopped)
	return r
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (r *embedRig) put(t *testing.T, id, body string) {
	t.Helper()
	if err := r.view.PutSkill(t.Context(), catalog.SkillRow{ID: id, Skill: body, RegisteredAt: "t"}); err != nil {
		t.Fatal(err)
	}
}

// search runs in on both searchers and returns their answers as JSON.
func (r *embedRig) search(t *testing.T, in Request) (plain, fused string) {
	t.Helper()
	if in.Limit == 0 {
		in.Limit = 8
	}
	a, err := r.plain.Search(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.fused.Search(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja), string(jb)
}

// embedded makes the first search (which lets Follow start) and waits
// until Follow has embedded every skill.
func (r *embedRig) embedded(t *testing.T) {
	t.Helper()
	r.search(t, Request{Query: "warm up"})
	synctest.Wait()
	if st, _ := r.fused.EmbedderStatus(); st.Waiting != 0 || st.Vectors != len(embedSkills) || st.State != EmbedderOK {
		t.Fatalf("after Follow: %+v, want %d vectors, none waiting, ok", st, len(embedSkills))
	}
}

func resultIDs(t *testing.T, answer string) (ids []string, ranking string) {
	t.Helper()
	var out contract.SearchResults
	if err := json.Unmarshal([]byte(answer), &out); err != nil {
		t.Fatal(err)
	}
	for _, res := range out.Results {
		ids = append(ids, res.ID)
	}
	return ids, out.Ranking
}

// With the embedder's vectors, a need that shares no word with its skill
// finds it first, grouped or not; before them, and for a need both
// rankings agree on, the answer is as the lexical one orders it, and an
// answer the lexical ranking gives alone is byte for byte the searcher's
// without an embedder.
func TestEmbedderFindsWhatSharesNoWord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newEmbedRig(t)
		// Before any vector, a searcher with an embedder answers as one
		// without. (Not r.fused: its first search lets its Follow embed the
		// skills, which may finish before that search fuses.)
		unfollowed := NewSearcher(SearcherConfig{View: r.view, Embedder: r.emb, EmbedderName: "test::embed"})
		plain, _ := r.search(t, Request{Query: paraphrase})
		got, err := unfollowed.Search(t.Context(), Request{Query: paraphrase, Limit: 8})
		if err != nil {
			t.Fatal(err)
		}
		jg, _ := json.Marshal(got)
		fused := string(jg)
		if plain != fused {
			t.Fatalf("before any vector, the answer differs from the lexical one:\nplain %s\nfused %s", plain, fused)
		}
		if ids, _ := resultIDs(t, plain); slices.Contains(ids, "billing/invoices") {
			t.Fatalf("the lexical ranking already finds the paraphrase's skill (%v): the test shows nothing", ids)
		}
		r.embedded(t)
		for _, group := range []bool{true, false} {
			_, fused = r.search(t, Request{Query: paraphrase, Group: &group})
			if ids, ranking := resultIDs(t, fused); len(ids) == 0 || ids[0] != "billing/invoices" || ranking != contract.RankingFused {
				t.Errorf("group %t, %q with vectors: %v ranked %q; want billing/invoices first, fused", group, paraphrase, ids, ranking)
			}
		}
		_, fused = r.search(t, Request{Query: "restore the postgres database"})
		var out contract.SearchResults
		if err := json.Unmarshal([]byte(fused), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Results) == 0 || out.Results[0].ID != "ops/restore" || out.Results[0].Score != 2 {
			t.Errorf("a need both rankings put first: %s; want ops/restore first with score 2 (first of both)", fused)
		}
	})
}

// An unchanged skill is never embedded again, an edited one is; the
// vectors kept after a run of changes are those a searcher built from
// scratch over the same skills computes.
func TestVectorsAreCachedByDigest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newEmbedRig(t)
		r.embedded(t)
		// The warm-up query is embedded too when Follow's first vectors
		// came before it fused, and not when they came after: count the
		// skills' texts alone.
		texts := slices.DeleteFunc(r.emb.asked(), func(s string) bool { return s == "warm up" })
		if len(texts) != len(embedSkills) {
			t.Fatalf("the first build embedded %d skill texts (%q), want %d, each once", len(texts), texts, len(embedSkills))
		}
		r.put(t, "ops/scale", "# Scale the fleet\n\nAdd nodes before the sale.")
		synctest.Wait()
		if got := r.emb.asked(); len(got) != 1 || !strings.HasPrefix(got[0], "Scale the fleet") {
			t.Errorf("after an unrelated registration the embedder was asked %q; want the new skill's text only", got)
		}
		r.put(t, "ops/rotate", "# Rotate credentials\n\nReplace leaked keys and tokens.")
		synctest.Wait()
		if got := r.emb.asked(); len(got) != 1 || !strings.Contains(got[0], "tokens") {
			t.Errorf("after an edit the embedder was asked %q; want the edited skill's new text only", got)
		}
		if _, err := r.view.DeleteSkill(t.Context(), "ops/restore"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := r.emb.asked(); len(got) != 0 {
			t.Errorf("an unregistration asked the embedder for %q", got)
		}

		scratch := NewSearcher(SearcherConfig{View: r.view, Embedder: embedtest.NewConcepts(embedConcepts...)})
		if _, err := scratch.Search(t.Context(), Request{Query: "x", Limit: 1}); err != nil {
			t.Fatal(err)
		}
		scratch.dense.embedPending(t.Context())
		if got, want := storedVectors(r.fused), storedVectors(scratch); !equalVectors(got, want) {
			t.Errorf("the vectors kept after changes differ from a rebuild:\n got %v\nwant %v", got, want)
		}
		if st, _ := r.fused.EmbedderStatus(); st.Vectors != 3 || st.Waiting != 0 {
			t.Errorf("status after the changes: %+v; want 3 vectors", st)
		}
	})
}

// storedVectors is every document's vector, by id.
func storedVectors(s *Searcher) map[string][]float32 {
	v := s.dense.store
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := map[string][]float32{}
	for id, d := range v.docs {
		out[id] = v.vecs[d]
	}
	if len(v.vecs) != len(out) || len(v.texts) != 0 {
		out["(cache holds vectors of no document, or texts)"] = nil
	}
	return out
}

func equalVectors(a, b map[string][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for id, v := range a {
		if w, ok := b[id]; !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

// Every bad answer of the embedder, to a query or to the skills' texts,
// leaves the answer byte for byte the lexical one, stores nothing, is said
// in the status, and is logged once however many searches meet it; when
// the embedder answers well again, searches fuse again.
func TestBadEmbedderAnswersFallBack(t *testing.T) {
	dim := embedtest.NewConcepts(embedConcepts...).Dimension()
	vec := func(n int, at int, x float32) []float32 {
		v := make([]float32, n)
		v[0] = 1
		if at >= 0 {
			v[at] = x
		}
		return v
	}
	answer := func(vecs ...[]float32) embedFunc {
		return func(context.Context, []string) ([][]float32, error) { return vecs, nil }
	}
	for _, c := range []struct {
		name string
		bad  embedFunc
		want string
	}{
		{"error", func(context.Context, []string) ([][]float32, error) { return nil, errors.New("model not loaded") }, "model not loaded"},
		{"no vectors", answer(), "answered 0 vectors for 1 texts"},
		{"too many vectors", answer(vec(dim, -1, 0), vec(dim, -1, 0)), "answered 2 vectors for 1 texts"},
		{"NaN", answer(vec(dim, 3, float32(math.NaN()))), "vector 0 holds NaN at 3"},
		{"infinity", answer(vec(dim, 2, float32(math.Inf(1)))), "vector 0 holds +Inf at 2"},
		{"wrong length", answer(vec(dim-1, -1, 0)), "vector 0 has 36 numbers; want 37 numbers"},
		{"empty vector", answer([]float32{}), "vector 0 is empty"},
		{"zero vector", answer(vec(dim, 0, 0)), "vector 0 has no direction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newEmbedRig(t)
				r.embedded(t)
				r.emb.set(c.bad)
				for range 3 {
					plain, fused := r.search(t, Request{Query: paraphrase})
					if plain != fused {
						t.Fatalf("a bad answer changed the result:\nplain %s\nfused %s", plain, fused)
					}
				}
				st, _ := r.fused.EmbedderStatus()
				if st.State != EmbedderFailing || !strings.Contains(st.LastError, c.want) || st.LastErrorAt.IsZero() {
					t.Errorf("status %+v; want failing, last error with %q", st, c.want)
				}
				if n := r.logs.FilterMessageSnippet("the embedder failed").Len(); n != 1 {
					t.Errorf("three failing searches logged %d warnings; want 1", n)
				}
				r.emb.set(nil)
				if _, fused := r.search(t, Request{Query: paraphrase}); !strings.Contains(fused, `"ranking":"fused"`) {
					t.Errorf("once the embedder answers again: %s; want a fused answer", fused)
				}
				if st, _ := r.fused.EmbedderStatus(); st.State != EmbedderOK || r.logs.FilterMessageSnippet("embedder answers again").Len() != 1 {
					t.Errorf("after recovery: %+v, %d recovery lines; want ok and one line", st, r.logs.FilterMessageSnippet("embedder answers again").Len())
				}

				// The same answer to the skills' texts: nothing is stored.
				r.emb.set(c.bad)
				r.put(t, "ops/scale", "# Scale the fleet\n\nAdd nodes before the sale.")
				synctest.Wait()
				if st, _ := r.fused.EmbedderStatus(); st.Vectors != len(embedSkills) || st.Waiting != 1 || st.State != EmbedderFailing {
					t.Errorf("after a bad answer to a new skill: %+v; want it waiting, the others kept, failing", st)
				}
			})
		})
	}
}

// A hanging embedder costs a search the timeout, not more, and the search
// answers lexically; Follow asks again for the vectors it could not get,
// later, without waiting for a change.
func TestHangingEmbedderTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newEmbedRig(t)
		r.embedded(t)
		hang := func(ctx context.Context, _ []string) ([][]float32, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		r.emb.set(hang)
		start := time.Now()
		plain, err := r.plain.Search(t.Context(), Request{Query: paraphrase, Limit: 8})
		if err != nil {
			t.Fatal(err)
		}
		fused, err := r.fused.Search(t.Context(), Request{Query: paraphrase, Limit: 8})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != DefaultEmbedTimeout {
			t.Errorf("the search took %s; want the embed timeout, %s", took, DefaultEmbedTimeout)
		}
		if !slices.EqualFunc(plain.Results, fused.Results, func(a, b contract.SearchResult) bool { return a.ID == b.ID && a.Score == b.Score }) || fused.Ranking != "" {
			t.Errorf("after a timeout: %+v; want the lexical answer %+v", fused, plain)
		}
		if st, _ := r.fused.EmbedderStatus(); st.State != EmbedderFailing || !strings.Contains(st.LastError, "no answer within 2s") {
			t.Errorf("status %+v; want failing with the timeout", st)
		}

		r.put(t, "ops/scale", "# Scale the fleet\n\nAdd nodes before the sale.")
		synctest.Wait() // Follow's call timed out; it waits to try again
		if st, _ := r.fused.EmbedderStatus(); st.Waiting != 1 {
			t.Fatalf("status %+v; want the new skill waiting", st)
		}
		r.emb.set(nil)
		time.Sleep(DefaultEmbedTimeout + embedRetryMin + time.Second)
		synctest.Wait()
		if st, _ := r.fused.EmbedderStatus(); st.Waiting != 0 || st.Vectors != len(embedSkills)+1 || st.State != EmbedderOK {
			t.Errorf("after the retry: %+v; want every skill with a vector", st)
		}
	})
}

// Reciprocal rank fusion: a skill both rankings list beats one only one
// lists, whatever its ranks there; a skill only the lexical ranking has
// (no vector yet) keeps its place among the others and its references;
// ties go by id.
func TestFuseByReciprocalRank(t *testing.T) {
	ref := []Hit{{ID: "a/references/x", Score: 3}}
	lexical := []Hit{{ID: "a", Score: 9, Matched: ref}, {ID: "b", Score: 5}, {ID: "c", Score: 1}}
	near := []Hit{{ID: "d", Score: 0.9}, {ID: "c", Score: 0.8}, {ID: "e", Score: 0.1}}
	hits, denseOnly := fuse(lexical, near)
	share := func(ranks ...int) float64 {
		s := 0.0
		for _, r := range ranks {
			s += 61.0 / float64(60+r)
		}
		return s
	}
	want := []Hit{
		{ID: "c", Score: share(3, 2)},
		{ID: "a", Score: share(1), Matched: ref},
		{ID: "d", Score: share(1)},
		{ID: "b", Score: share(2)},
		{ID: "e", Score: share(3)},
	}
	if !slices.EqualFunc(hits, want, func(a, b Hit) bool {
		return a.ID == b.ID && math.Abs(a.Score-b.Score) < 1e-12 && len(a.Matched) == len(b.Matched) && (len(a.Matched) == 0 || a.Matched[0].ID == b.Matched[0].ID)
	}) || denseOnly != 2 {
		t.Errorf("fuse = %v, %d only dense; want %v, 2", hits, denseOnly, want)
	}
}
