package worker

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// corpusFiles are the files a root serves, by id: every regular file of
// a skill folder (one holding a SKILL.md, below the root), hidden ones
// left out, named as ids.FileID names its path (D69).
func corpusFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	var all []string
	folders := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
			all = append(all, rel)
			if strings.EqualFold(d.Name(), fsource.SkillFile) && strings.Contains(rel, "/") {
				folders[filepath.Dir(p)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, rel := range all {
		inSkill := false
		for d := filepath.Dir(filepath.Join(root, rel)); d != root; d = filepath.Dir(d) {
			inSkill = inSkill || folders[d]
		}
		if !inSkill {
			continue
		}
		id, err := ids.FileID(rel)
		if err != nil {
			t.Fatalf("the corpus file %s has no id: %v", rel, err)
		}
		if _, dup := files[id]; dup {
			t.Fatalf("two corpus files onto the id %s", id)
		}
		files[id] = rel
	}
	return files
}

// The shared public corpus served unmodified from a root has every file
// on every surface (issue 29, D69): skills::list, resources-list, the
// iii://skills index, skill::fetch, skill::search, the MCP Skills
// extension's listing and skills::diagnostics, with no problem reported.
func TestPublicCorpusEveryFileOnEverySurface(t *testing.T) {
	corpus := catalogtest.PublicCorpus(t)
	want := corpusFiles(t, corpus)
	// Files every client loads that the 0.1 id rule left out.
	for _, id := range []string{"hashicorp/terraform-test/references/CI_CD.md", "scientific/geomaster/README.md", "anthropic/claude-api/LICENSE.txt"} {
		if _, ok := want[id]; !ok {
			t.Fatalf("the corpus lacks %s: is it the shared corpus?", id)
		}
	}
	srv := iiitest.NewServer(t)
	runWorkerWith(t, srv.URL(), "roots: ["+corpus+"]\n")
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "caller"})
	caller.Start()
	t.Cleanup(func() { caller.Close() }) //nolint:errcheck // the test's own client
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for _, fn := range []string{"skills::list", "skill::search", "skills::mcp-skills-list", "skills::diagnostics"} {
		if err := srv.WaitFunction(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	if err := caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	call := func(fn string, in any, out any) {
		t.Helper()
		raw, err := caller.Call(ctx, fn, in)
		if err != nil {
			t.Fatalf("%s %v: %v", fn, in, err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %.300s", fn, err, raw)
		}
	}
	wantIDs := make([]string, 0, len(want))
	for id := range want {
		wantIDs = append(wantIDs, id)
	}
	slices.Sort(wantIDs)
	same := func(surface string, got []string) {
		t.Helper()
		slices.Sort(got)
		if diff := cmp.Diff(wantIDs, got); diff != "" {
			t.Errorf("%s serves another set of files (-corpus +%s):\n%s", surface, surface, diff)
		}
	}

	var list struct{ Skills []struct{ ID string } }
	call("skills::list", map[string]any{}, &list)
	var listed []string
	for _, s := range list.Skills {
		listed = append(listed, s.ID)
	}
	same("skills::list", listed)

	var resources []string
	for cursor := ""; ; {
		var page struct {
			Resources  []struct{ URI string }
			NextCursor string
		}
		in := map[string]any{}
		if cursor != "" {
			in["cursor"] = cursor
		}
		call("skills::resources-list", in, &page)
		for _, r := range page.Resources {
			if r.URI != "iii://skills" {
				resources = append(resources, strings.TrimPrefix(r.URI, "iii://"))
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	same("resources-list", resources)

	var index struct{ Contents []struct{ Text string } }
	call("skills::resources-read", map[string]string{"uri": "iii://skills"}, &index)
	var indexed []string
	for _, id := range wantIDs {
		if strings.Contains(index.Contents[0].Text, "(iii://"+id+")") {
			indexed = append(indexed, id)
		}
	}
	same("the index", indexed)

	var fetched []string
	for _, id := range wantIDs {
		raw, err := caller.Call(ctx, "skill::fetch", map[string]string{"uri": "iii://" + id})
		if err != nil {
			t.Errorf("skill::fetch iii://%s: %v", id, err)
			continue
		}
		var doc string
		if json.Unmarshal(raw, &doc) == nil && strings.HasPrefix(doc, "# iii://"+id+"\n\n") {
			fetched = append(fetched, id)
		}
	}
	same("skill::fetch", fetched)

	// Search: each file the 0.1 id rule left out is found by its title.
	for _, id := range wantIDs {
		if ids.ValidateSkillID(id) == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(want[id])))
		if err != nil {
			t.Fatal(err)
		}
		query, ok := skillmd.Title(skillmd.Parse(string(b)).Body)
		if !ok {
			query = strings.TrimSpace(strings.SplitN(strings.TrimSpace(string(b)), "\n", 2)[0])
		}
		var res struct{ Results []struct{ ID string } }
		call("skill::search", map[string]any{"query": ids.Clip(query), "limit": 50, "group": false}, &res)
		if !slices.ContainsFunc(res.Results, func(r struct{ ID string }) bool { return r.ID == id }) {
			t.Errorf("skill::search %q (group false, limit 50) does not find %s", query, id)
		}
	}

	// The MCP Skills extension: each skill it serves lists the files of
	// its folder, and they are the files the other surfaces serve.
	var mcp struct {
		Skills []struct {
			URI       string
			Resources []struct{ URI string }
		}
	}
	call("skills::mcp-skills-list", map[string]any{"limit": 100000}, &mcp)
	if len(mcp.Skills) == 0 {
		t.Fatal("the MCP Skills extension serves no skill of the corpus")
	}
	served := map[string]bool{}
	for _, s := range mcp.Skills {
		skill := strings.TrimSuffix(strings.TrimPrefix(s.URI, "skill://"), "/SKILL.md")
		for _, r := range s.Resources {
			rel, err := url.PathUnescape(strings.TrimPrefix(r.URI, "skill://"))
			if err != nil {
				t.Fatalf("%s: %v", r.URI, err)
			}
			id, err := ids.FileID(rel)
			if _, ok := want[id]; err != nil || !ok {
				t.Errorf("the MCP Skills extension serves %s (id %q, %v), which the other surfaces do not", r.URI, id, err)
			}
			served[id] = true
		}
		for id, rel := range want {
			if strings.HasPrefix(rel, skill+"/") && !served[id] {
				t.Errorf("the MCP skill %s lacks its file %s", s.URI, rel)
			}
		}
	}

	var diag struct {
		Files []struct{ ID, Status, Reason, Path string }
	}
	call("skills::diagnostics", map[string]any{}, &diag)
	var loaded []string
	for _, f := range diag.Files {
		switch f.Status {
		case "loaded":
			loaded = append(loaded, f.ID)
		case "warning": // a row of its own beside the file's loaded row
		default:
			t.Errorf("skills::diagnostics: %s %s: %s", f.Status, f.Path, f.Reason)
		}
	}
	same("skills::diagnostics", loaded)
}
