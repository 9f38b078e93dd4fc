package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// searchRig is a registry with its catalog on a real engine and a watched
// skills folder, as the worker runs them.
type searchRig struct {
	reg    *Registry
	skills *catalog.Scope
	watch  *fsource.Watch
	dir    string
}

func newSearchRig(t *testing.T) *searchRig {
	t.Helper()
	srv := iiitest.NewServer(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	client := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	skills := catalog.NewSkillsScope("skills", 1<<20)
	prompts := catalog.NewPromptsScope("prompts")
	cat := catalog.New(client, 5*time.Second, nil, skills, prompts)
	src := fsource.New(dir, []string{"skills/**/*.md"}, nil)
	watch := fsource.NewWatch(src, fsource.WatchOptions{})
	reg := New(Config{Caller: client, SkillsMirror: skills, PromptsMirror: prompts, FS: src, FSWatch: watch, FSCacheBytes: 1 << 20})
	watch.Start(context.Background())
	client.Start()
	cat.Start()
	t.Cleanup(func() {
		cat.Close()
		client.Close()
		watch.Close()
	})
	waitScope(t, skills, "load", skills.Valid)
	return &searchRig{reg: reg, skills: skills, watch: watch, dir: dir}
}

func (r *searchRig) ids(t *testing.T, query string) []string {
	t.Helper()
	out, err := r.reg.search(t.Context(), searchRequest{Query: query, Limit: 10})
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	var ids []string
	for _, res := range out.Results {
		ids = append(ids, res.ID)
	}
	return ids
}

// Search sees a registration and an unregistration on the very next call,
// and a file edit as soon as the watcher has seen it.
func TestSearchFollowsEveryChange(t *testing.T) {
	r := newSearchRig(t)
	ctx := t.Context()
	if got := r.ids(t, "quarterly invoices"); len(got) != 0 {
		t.Fatalf("an empty registry found %v", got)
	}
	if _, err := r.reg.registerSkill(ctx, registerSkillInput{ID: "billing/invoices", Skill: "# Invoices\n\nSend the quarterly invoices to every customer."}); err != nil {
		t.Fatal(err)
	}
	if got := r.ids(t, "quarterly invoices"); len(got) != 1 || got[0] != "billing/invoices" {
		t.Errorf("after a registration: %v", got)
	}
	if _, err := r.reg.unregisterSkill(ctx, unregisterSkillInput{ID: "billing/invoices"}); err != nil {
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
		if _, err := r.reg.registerSkill(ctx, registerSkillInput{ID: id, Skill: body}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := r.reg.search(ctx, searchRequest{Query: "postgres backup", Limit: 2})
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
	cut, err := r.reg.search(ctx, searchRequest{Query: "postgres backup", Limit: 2, MaxTokens: budget})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Results) != 1 || cut.Total != 3 || estimateTokens(cut) > budget {
		t.Errorf("with max_tokens %d: %+v", budget, cut)
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
	out, err := r.reg.search(t.Context(), in)
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

// What an agent spends to find a skill: one search (limit 8) plus the top
// hit's body, against reading the whole iii://skills index (D40, issue
// 12's measure). First the evaluation corpus served as a root (226
// entries), then the same with copies of its skills registered in state
// until the index holds 1,000 entries, the size the target names.
func TestSearchTokensPerLookup(t *testing.T) {
	corpus, err := filepath.Abs(filepath.Join("..", "search", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	src := fsource.New(corpus, nil, nil, fsource.Roots("skills"))
	watch := fsource.NewWatch(src, fsource.WatchOptions{})
	watch.Start(t.Context())
	t.Cleanup(watch.Close)
	r := newSearchRig(t) // its catalog, with an empty scope
	reg := New(Config{Caller: r.reg.caller, SkillsMirror: r.skills, FS: src, FSWatch: watch, FSCacheBytes: 64 << 20})
	ctx := t.Context()
	raw, err := os.ReadFile(filepath.Join(corpus, "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var queries []struct {
		Q string `json:"q"`
	}
	if err := json.Unmarshal(raw, &queries); err != nil {
		t.Fatal(err)
	}
	measure := func(want int) {
		index := reg.index(ctx)
		if n := strings.Count(index, "](iii://"); n != want {
			t.Fatalf("the index lists %d entries, want %d", n, want)
		}
		total := 0
		for _, q := range queries {
			out, err := reg.search(ctx, searchRequest{Query: q.Q, Limit: defaultSearchLimit})
			if err != nil || len(out.Results) == 0 {
				t.Fatalf("search %q: %+v, %v", q.Q, out, err)
			}
			resp, _ := json.Marshal(out)
			body, err := reg.skillBody(ctx, out.Results[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			total += (len(resp) + len(body) + 3) / 4
		}
		perLookup := float64(total) / float64(len(queries))
		indexTokens := float64(len(index)+3) / 4
		t.Logf("%d skills: tokens per lookup %.0f; the whole index %.0f (%.1f%%)", want, perLookup, indexTokens, 100*perLookup/indexTokens)
		if perLookup > indexTokens/10 {
			t.Errorf("%d skills: a lookup costs %.0f tokens, more than a tenth of the index's %.0f", want, perLookup, indexTokens)
		}
	}
	const served = 226 // 200 skills and 26 reference files
	measure(served)

	skills, _ := src.Skills()
	for i := 0; i < 1000-served; i++ {
		sk := skills[i%len(skills)]
		body, err := fsource.ReadBody(sk.Path)
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("copy%d/%s", i/len(skills), sk.ID)
		if _, err := r.reg.registerSkill(ctx, registerSkillInput{ID: id, Skill: body}); err != nil {
			t.Fatalf("register %s: %v", id, err)
		}
	}
	waitScope(t, r.skills, "1,000 entries", func() bool { return r.skills.Len() == 1000-served })
	measure(1000)
}
