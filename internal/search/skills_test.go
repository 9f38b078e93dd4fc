package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// skillsRig is a Searcher over a view of a loaded skills scope (kept
// current by the view's own writes, as the worker's catalog is) and a
// watched skills folder.
type skillsRig struct {
	view     *catalog.View
	searcher *Searcher
	watch    *fsource.Watch
	dir      string
}

func newSearchRig(t *testing.T) *skillsRig {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	skills := catalog.NewSkillsScope("skills", 1<<20)
	skills.BeginLoad()
	skills.EndLoad(nil)
	src := fsource.New(dir, []string{"skills/**/*.md"}, nil)
	watch := fsource.NewWatch(src, fsource.WatchOptions{})
	view := catalog.NewView(catalog.ViewConfig{Skills: skills, Caller: catalogtest.NewState(), SkillsScope: "skills",
		PromptsScope: "prompts", Timeout: 2 * time.Second, Source: src, Watch: watch, BodyCacheBytes: 1 << 20})
	watch.Start(context.Background())
	t.Cleanup(watch.Close)
	return &skillsRig{view: view, searcher: NewSearcher(SearcherConfig{View: view}), watch: watch, dir: dir}
}

func (r *skillsRig) ids(t *testing.T, query string) []string {
	t.Helper()
	out, err := r.searcher.Search(t.Context(), Request{Query: query, Limit: 10})
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	var ids []string
	for _, res := range out.Results {
		ids = append(ids, res.ID)
	}
	return ids
}

// errText returns err's message and wire code, "" for nil.
func errText(err error) (msg, code string) {
	if err == nil {
		return "", ""
	}
	return err.Error(), contract.CodeOf(err)
}

// Search sees a registration and an unregistration on the very next call,
// and a file edit as soon as the watcher has seen it.
func TestSearchFollowsEveryChange(t *testing.T) {
	r := newSearchRig(t)
	ctx := t.Context()
	if got := r.ids(t, "quarterly invoices"); len(got) != 0 {
		t.Fatalf("an empty registry found %v", got)
	}
	if err := r.view.PutSkill(ctx, catalog.SkillRow{ID: "billing/invoices", Skill: "# Invoices\n\nSend the quarterly invoices to every customer.", RegisteredAt: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := r.ids(t, "quarterly invoices"); len(got) != 1 || got[0] != "billing/invoices" {
		t.Errorf("after a registration: %v", got)
	}
	if _, err := r.view.DeleteSkill(ctx, "billing/invoices"); err != nil {
		t.Fatal(err)
	}
	if got := r.ids(t, "quarterly invoices"); len(got) != 0 {
		t.Errorf("after an unregistration: %v", got)
	}

	path := filepath.Join(r.dir, "skills", "runbook.md")
	if err := os.WriteFile(path, []byte("# Runbook\n\nRestart the ingestion queue.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.ids(t, "ingestion queue"); len(got) != 1 || got[0] != "runbook" {
		t.Errorf("a new file: %v", got)
	}
	changed := r.watch.Changed()
	if err := os.WriteFile(path, []byte("# Runbook\n\nDrain the reconciliation backlog, then restart.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher never saw the edit")
	}
	if got := r.ids(t, "reconciliation backlog"); len(got) != 1 || got[0] != "runbook" {
		t.Errorf("after an edit: %v", got)
	}
	if got := r.ids(t, "ingestion"); len(got) != 0 {
		t.Errorf("the edited file still matches its old text: %v", got)
	}
}

// The result shape, limit and max_tokens (D40).
func TestSearchResultsAndBudget(t *testing.T) {
	r := newSearchRig(t)
	ctx := t.Context()
	for i, id := range []string{"pg/backup", "pg/restore", "pg/tuning"} {
		body := "# Postgres " + id + "\n\nPostgres " + strings.Repeat("backup ", 3-i) + "procedures for the team.\n"
		if err := r.view.PutSkill(ctx, catalog.SkillRow{ID: id, Skill: body, RegisteredAt: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := r.searcher.Search(ctx, Request{Query: "postgres backup", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if out.Total != 3 || len(out.Results) != 2 || out.Results[0].ID != "pg/backup" {
		t.Fatalf("search = %+v", out)
	}
	first := out.Results[0]
	if first.URI != "iii://pg/backup" || first.Title != "Postgres pg/backup" || first.Tokens != (len("# Postgres pg/backup\n\nPostgres backup backup backup procedures for the team.\n")+3)/4 ||
		first.Description != "Postgres backup backup backup procedures for the team." || first.Score <= out.Results[1].Score {
		t.Errorf("first result = %+v", first)
	}
	full, _ := json.Marshal(out)
	budget := (len(full)+3)/4 - 1 // one token short of both results
	cut, err := r.searcher.Search(ctx, Request{Query: "postgres backup", Limit: 2, MaxTokens: budget})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Results) != 1 || cut.Total != 3 || estimateTokens(cut) > budget {
		t.Errorf("with max_tokens %d: %+v", budget, cut)
	}
}

// A reference folds into its skill: the skill is the result, scored with
// its references as a field of its own document (D80), the reference
// listed under it with its own score; limit counts skills. group: false
// ranks every document on its own.
func TestSearchGroupsReferencesUnderTheirSkill(t *testing.T) {
	r := newSearchRig(t)
	ctx := t.Context()
	for id, body := range map[string]string{
		"terraform":                 "# Terraform\n\nPlan and apply infrastructure.",
		"terraform/references/lock": "# State locking\n\nA stale state lock blocks every apply; force-unlock it.",
		"terraform/references/cli":  "# CLI\n\nThe init, plan and apply commands.",
		"pulumi":                    "# Pulumi\n\nState is kept in a backend; a lock guards it.",
	} {
		if err := r.view.PutSkill(ctx, catalog.SkillRow{ID: id, Skill: body, RegisteredAt: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := r.searcher.Search(ctx, Request{Query: "stale state lock", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Total != 2 || len(out.Results) != 1 {
		t.Fatalf("grouped: %+v; want 1 of 2 skills", out)
	}
	no := false
	flat, err := r.searcher.Search(ctx, Request{Query: "stale state lock", Limit: 10, Group: &no})
	if err != nil {
		t.Fatal(err)
	}
	if flat.Total != 2 || len(flat.Results) != 2 || flat.Results[0].ID != "terraform/references/lock" || flat.Results[0].Matched != nil {
		t.Fatalf("flat: %+v", flat)
	}
	top := out.Results[0]
	want := []contract.SearchMatch{{ID: "terraform/references/lock", URI: "iii://terraform/references/lock", Title: "State locking", Score: flat.Results[0].Score}}
	if top.ID != "terraform" || top.Title != "Terraform" || len(top.Matched) != 1 || top.Matched[0] != want[0] || top.Score <= 0 {
		t.Errorf("grouped: %+v; want terraform listing %+v", top, want)
	}
}

// Every bad request is invalid_argument with what is allowed; a query that
// matches nothing is an empty list.
func TestSearchRequestErrors(t *testing.T) {
	for payload, want := range map[string]string{
		`{}`:                "missing field `query`",
		`null`:              "missing field `query`",
		`[]`:                "the payload must be a JSON object",
		`{"query": 7}`:      "`query` must be a string of 1 to 1000 characters, got 7",
		`{"query": ""}`:     "`query` must have at least one character that is not a space",
		`{"query": " \t "}`: "`query` must have at least one character that is not a space",
		`{"query": "` + strings.Repeat("é", 1001) + `"}`: "`query` is 1001 characters; at most 1000",
		`{"query": "bell\u0007"}`:                        "`query` may not hold control characters (U+0007 at character 5)",
		"{\"query\": \"bad \xff byte\"}":                 "`query` must be valid UTF-8 text (character 5 is not)",
		`{"query": "lone \udc80"}`:                       "`query` must be valid UTF-8 text",
		`{"query": "x", "limit": 0}`:                     "`limit` must be a whole number from 1 to 50 (default 8), got 0",
		`{"query": "x", "limit": 51}`:                    "got 51",
		`{"query": "x", "limit": -1}`:                    "got -1",
		`{"query": "x", "limit": "x"}`:                   `got "x"`,
		`{"query": "x", "limit": 2.5}`:                   "got 2.5",
		`{"query": "x", "max_tokens": -5}`:               "`max_tokens` must be a whole number of tokens from 1, got -5",
		`{"query": "x", "max_tokens": 0}`:                "got 0",
		`{"query": "x", "group": "no"}`:                  "`group` must be true (skills, with their matching references under each; the default) or false (every document on its own), got \"no\"",
		`{"query": "x", "after": 5}`:                     "`after` must be a version string from a write's reply, or a list of at most 64 of them; got 5",
		`{"query": "x", "after": "v2.x"}`:                `version "v2.x" is not one this worker issued`,
	} {
		_, err := parseSearchRequest(json.RawMessage(payload))
		msg, code := errText(err)
		if code != contract.CodeInvalidArgument || !strings.Contains(msg, want) {
			t.Errorf("%s: %s %q, want invalid_argument containing %q", payload, code, msg, want)
		}
	}
	in, err := parseSearchRequest(json.RawMessage(`{"query": "  the of and  ", "limit": 50, "max_tokens": 100}`))
	if err != nil || in.Limit != 50 || in.MaxTokens != 100 {
		t.Fatalf("a valid request: %+v, %v", in, err)
	}
	r := newSearchRig(t)
	out, err := r.searcher.Search(t.Context(), in)
	if err != nil || out.Total != 0 || out.Results == nil || len(out.Results) != 0 {
		t.Errorf("a query of stop words: %+v, %v; want an empty list", out, err)
	}
}

// FuzzSearchRequest: no payload makes the request parser panic, and what
// it accepts is a query a search can use with limits in range.
func FuzzSearchRequest(f *testing.F) {
	for _, s := range []string{`{"query":"restore a backup","limit":3,"max_tokens":500}`, `{"query":""}`, `{"query":"x","limit":"9"}`, "{\"query\":\"\xff\"}", `null`, `{"query":"a\u0000b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		in, err := parseSearchRequest(payload)
		if err != nil {
			if _, code := errText(err); code != contract.CodeInvalidArgument {
				t.Fatalf("error %v is not invalid_argument", err)
			}
			return
		}
		if checkQuery(in.Query) != nil || in.Limit < 1 || in.Limit > maxSearchLimit || in.MaxTokens < 0 {
			t.Fatalf("accepted %+v from %q", in, payload)
		}
	})
}

// Follow builds no index before the first search; then it indexes each
// change the view's feed reports, before any search asks, and stops with
// its context.
func TestFollowIndexesChangesAsTheyHappen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		skills := catalog.NewSkillsScope("skills", 1<<20)
		skills.BeginLoad()
		skills.EndLoad(nil)
		view := catalog.NewView(catalog.ViewConfig{Skills: skills, Caller: catalogtest.NewState(), SkillsScope: "skills", Timeout: time.Second})
		s := NewSearcher(SearcherConfig{View: view})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Follow(ctx)
		}()
		if err := view.PutSkill(t.Context(), catalog.SkillRow{ID: "ops/notes", Skill: "# Notes", RegisteredAt: "t"}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, ok := s.entry("ops/notes"); ok {
			t.Fatal("Follow built an index before any search")
		}
		if _, err := s.Search(t.Context(), Request{Query: "notes", Limit: 8}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if err := view.PutSkill(t.Context(), catalog.SkillRow{ID: "ops/runbook", Skill: "# Runbook\n\nDrain the queue.", RegisteredAt: "t"}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // Follow has indexed the change and waits for the next
		if e, ok := s.entry("ops/runbook"); !ok || e.title != "Runbook" {
			t.Errorf("after a registration, without a search: entry = %+v, %v", e, ok)
		}
		if _, err := view.DeleteSkill(t.Context(), "ops/runbook"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, ok := s.entry("ops/runbook"); ok {
			t.Error("after an unregistration the entry is still indexed")
		}
		cancel()
		<-done
	})
}

// TestTenResultsFitTheBudget: ten results, with their descriptions and
// the references under them, fit in 1,000 tokens for every query
// of the corpus, and of the public corpus where a copy is present; each
// description is cut at a word boundary.
func TestTenResultsFitTheBudget(t *testing.T) {
	dirs := map[string]string{"corpus": filepath.Join("testdata", "corpus", "skills")}
	needs := map[string]string{"corpus": filepath.Join("testdata", "corpus", "queries.json"), "public": filepath.Join("testdata", "public", "needs.json")}
	for _, d := range publicSkillDirs() {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dirs["public"] = d
			break
		}
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			skills := catalog.NewSkillsScope("skills", 1<<20)
			skills.BeginLoad()
			skills.EndLoad(nil)
			src := fsource.New(filepath.Dir(abs), nil, nil, fsource.Roots(filepath.Base(abs)))
			view := catalog.NewView(catalog.ViewConfig{Skills: skills, Caller: catalogtest.NewState(), SkillsScope: "skills",
				PromptsScope: "prompts", Timeout: 2 * time.Second, Source: src, BodyCacheBytes: 1 << 20})
			s := NewSearcher(SearcherConfig{View: view})
			most := 0
			for _, q := range readNeeds(t, needs[name]) {
				out, err := s.Search(t.Context(), Request{Query: q.Q, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				most = max(most, estimateTokens(out))
				if n := estimateTokens(out); len(out.Results) == 10 && n > 10*resultTokens {
					t.Errorf("%q: ten results cost %d tokens; at most %d", q.Q, n, 10*resultTokens)
				}
				for _, r := range out.Results {
					d := r.Description
					if n := len([]rune(d)); n > resultDescriptionRunes+len(skillmd.Ellipsis) ||
						(strings.HasSuffix(d, skillmd.Ellipsis) && strings.Contains(d[len(d)-len(skillmd.Ellipsis)-1:], " ")) {
						t.Errorf("%s: description of %d characters, or cut after a space: %q", r.ID, n, d)
					}
					if r.Tokens <= 0 || len(r.Matched) > maxMatched {
						t.Errorf("%s: tokens %d, %d matched", r.ID, r.Tokens, len(r.Matched))
					}
				}
			}
			t.Logf("the largest answer of ten results: %d tokens", most)
		})
	}
}
