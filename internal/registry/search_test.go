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
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/search"
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
	searcher := search.NewSearcher(search.SearcherConfig{View: reg.View()})
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
			out, err := searcher.Search(ctx, search.Request{Query: q.Q, Limit: 8}) // skill::search's default limit
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
