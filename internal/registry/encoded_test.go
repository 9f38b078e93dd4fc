package registry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
)

// TestEncodedAnswersStayCached checks, in every configuration the worker
// runs in (no files; globs without a watch; a watch by fsnotify; a watch
// that polls), that skills::list and the iii://skills read answer an
// unchanged catalog with the bytes they kept, and keep them through
// writes that leave the content as it was: the event's re-read of a row
// the worker just wrote, and a burst of registrations that ends where it
// started. A real change is answered anew (issue 22, D53).
func TestEncodedAnswersStayCached(t *testing.T) {
	for _, cfg := range []struct {
		name  string
		files bool
		watch *fsource.WatchOptions
	}{
		{"no files", false, nil},
		{"globs without a watch", true, nil},
		{"watch by fsnotify", true, &fsource.WatchOptions{}},
		{"watch that polls", true, &fsource.WatchOptions{ForcePoll: true, PollInterval: time.Hour}},
	} {
		t.Run(cfg.name, func(t *testing.T) {
			ctx := t.Context()
			mirror := catalog.NewSkillsScope("skills", 1<<20)
			mirror.BeginLoad()
			mirror.EndLoad(nil)
			c := Config{Caller: newFakeEngine(), SkillsMirror: mirror, StateTimeout: 2 * time.Second,
				Now: func() time.Time { return fixedNow }}
			if cfg.files {
				dir := t.TempDir()
				writeOld(t, filepath.Join(dir, "docs", "guide.md"), "# Guide\n\nHow to read the docs.\n")
				c.FS = fsource.New(dir, []string{"docs/**/*.md"}, nil)
				if cfg.watch != nil {
					c.FSWatch = fsource.NewWatch(c.FS, *cfg.watch)
					c.FSWatch.Start(ctx)
					t.Cleanup(c.FSWatch.Close)
				}
			}
			r := New(c)
			fns := r.Functions()
			register := func(id, body string) {
				t.Helper()
				if _, err := r.registerSkill(ctx, registerSkillInput{ID: id, Skill: body}); err != nil {
					t.Fatal(err)
				}
			}
			register("billing", "# Billing\n\nInvoices and refunds.\n")
			register("deploy", "# Deploy\n\nShip it.\n")

			list, index := answers(t, ctx, fns)
			same := func(when string, wantKept bool) {
				t.Helper()
				l2, i2 := answers(t, ctx, fns)
				if string(l2) != string(list) || string(i2) != string(index) {
					t.Fatalf("%s: the answers changed:\n%s\n%s", when, l2, i2)
				}
				if kept := sameBytes(l2, list) && sameBytes(i2, index); kept != wantKept {
					t.Fatalf("%s: answered from the kept bytes = %v, want %v", when, kept, wantKept)
				}
			}
			same("read again", true)

			row := mirrorRow(t, mirror, "billing")
			before := mirror.Version()
			mirror.Put("billing", row) // the event's re-read of the worker's own write
			if mirror.Version() == before {
				t.Fatal("the re-read did not move the scope's version; the test no longer tests anything")
			}
			same("after the re-read of an unchanged row", true)

			register("billing", "# Billing\n\nA burst of edits.\n")
			register("billing", "# Billing\n\nInvoices and refunds.\n") // as it was
			same("after a burst that ends where it started", true)

			register("billing", "# Billing\n\nSomething new.\n")
			l3, i3 := answers(t, ctx, fns)
			if string(l3) == string(list) || string(i3) == string(index) {
				t.Fatal("a changed skill is still answered with the old bytes")
			}
		})
	}
}

// answers calls skills::list and reads iii://skills through the
// functions' handlers, as the engine would.
func answers(t *testing.T, ctx context.Context, fns []iii.Function) (list, index []byte) {
	t.Helper()
	for _, c := range []struct {
		id, payload string
		out         *[]byte
	}{
		{contract.FnSkillsList, `{}`, &list},
		{contract.FnSkillsResourcesRead, `{"uri":"iii://skills"}`, &index},
	} {
		res, err := callFunction(ctx, fns, c.id, c.payload)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		raw, ok := res.(iii.Encoded)
		if !ok {
			t.Fatalf("%s answered %T, not bytes kept encoded", c.id, res)
		}
		*c.out = raw
	}
	return list, index
}

// sameBytes reports whether a and b are the same stored bytes, not equal
// copies.
func sameBytes(a, b []byte) bool { return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0] }

// mirrorRow is the row the mirror holds for key, as the engine stores it.
func mirrorRow(t *testing.T, s *catalog.Scope, key string) json.RawMessage {
	t.Helper()
	e, found, _ := s.Get(key)
	if !found || e.Err != nil {
		t.Fatalf("the mirror has no row %q", key)
	}
	sum := e.Summary.(catalog.StateSkill)
	row, err := json.Marshal(catalog.SkillRow{ID: key, Skill: e.Body, RegisteredAt: sum.RegisteredAt})
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// writeOld writes a file with an mtime an hour old, so what is read of it
// is kept (nothing is kept of a file written in the last two seconds).
func writeOld(t *testing.T, path, content string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(content), 0o644))
	old := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(path, old, old))
}

// TestEncodedAnswersKeepTheirSchemas checks that the functions answering
// with kept bytes register what the typed handlers registered (their
// schemas are what engine::functions::info shows a client).
func TestEncodedAnswersKeepTheirSchemas(t *testing.T) {
	r := newFixture(t, nil).reg
	typed := map[string]iii.Function{
		contract.FnSkillsList:          iii.NewFunction(contract.FnSkillsList, descSkillsList, r.listSkills),
		contract.FnSkillsResourcesRead: iii.NewFunction(contract.FnSkillsResourcesRead, descResourcesRead, r.resourcesRead),
	}
	for _, f := range r.Functions() {
		want, ok := typed[f.ID]
		if !ok {
			continue
		}
		delete(typed, f.ID)
		if string(f.RequestFormat) != string(want.RequestFormat) || string(f.ResponseFormat) != string(want.ResponseFormat) ||
			f.Description != want.Description || string(f.Metadata) != string(want.Metadata) {
			t.Errorf("%s registers\n%s\n%s\nwhere its typed handler registered\n%s\n%s",
				f.ID, f.RequestFormat, f.ResponseFormat, want.RequestFormat, want.ResponseFormat)
		}
	}
	if len(typed) > 0 {
		t.Errorf("functions not registered: %v", typed)
	}
}
