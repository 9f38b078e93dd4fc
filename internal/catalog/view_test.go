package catalog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// newFileView is a view over dir's skills/*.md and prompts/*.md files
// and the rows f stores, read through (no catalog scopes).
func newFileView(t *testing.T, f *catalogtest.State, dir string) *View {
	t.Helper()
	src := fsource.New(dir, []string{"skills/*.md"}, []string{"prompts/*.md"})
	return NewView(ViewConfig{Caller: f, SkillsScope: "skills", PromptsScope: "prompts", Timeout: time.Second,
		Source: src, BodyCacheBytes: 1 << 20})
}

func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A stored prompt wins its name over a prompt file, as a stored skill
// wins its id; each entry carries its origin and digest.
func TestViewPromptsStateWinsItsName(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "prompts/greet.md", "---\ndescription: From a file.\n---\nHello\n")
	writeFile(t, dir, "prompts/ship.md", "---\ndescription: Ship it.\n---\nShip\n")
	f := catalogtest.NewState()
	v := newFileView(t, f, dir)
	row := PromptRow{Name: "greet", Description: "Stored.", FunctionID: "demo::greet", RegisteredAt: "t", Arguments: []PromptArg{}}
	if err := v.PutPrompt(t.Context(), row); err != nil {
		t.Fatal(err)
	}

	l, err := v.Prompts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	type entry struct{ Name, Origin, Description, SHA256 string }
	var got []entry
	for _, p := range l.Prompts {
		d := p.Row.Description
		if p.Origin == OriginFS {
			d = p.File.Description
		}
		got = append(got, entry{p.Name, p.Origin, d, p.SHA256})
	}
	want := []entry{
		{"greet", OriginState, "Stored.", promptDigest(row)},
		{"ship", OriginFS, "Ship it.", sha256Hex([]byte("---\ndescription: Ship it.\n---\nShip\n"))},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	if len(l.Shadowed) != 1 || l.Shadowed[0].Name != "greet" {
		t.Errorf("shadowed = %+v, want the greet file", l.Shadowed)
	}
	if p, ok := l.Prompt("ship"); !ok || p.Origin != OriginFS {
		t.Errorf("Prompt(ship) = %+v, %v", p, ok)
	}
}

// Body serves the stored row first, then the file; an id neither has is
// not found, without an error.
func TestViewBody(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "skills/a.md", "# From a file\n")
	writeFile(t, dir, "skills/b.md", "# B\n")
	f := catalogtest.NewState()
	v := newFileView(t, f, dir)
	if err := v.PutSkill(t.Context(), SkillRow{ID: "a", Skill: "# Stored", RegisteredAt: "t"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id, want string
		found    bool
	}{{"a", "# Stored", true}, {"b", "# B\n", true}, {"c", "", false}} {
		body, found, err := v.Body(t.Context(), tt.id)
		if err != nil || body != tt.want || found != tt.found {
			t.Errorf("Body(%s) = %q, %v, %v; want %q, %v", tt.id, body, found, err, tt.want, tt.found)
		}
	}
}

// Next returns as soon as a stored row or the file scan changes the
// view's Version, and not before.
func TestViewNextFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	skills := NewSkillsScope("skills", 0)
	skills.BeginLoad()
	skills.EndLoad(nil)
	v := NewView(ViewConfig{Skills: skills, Caller: catalogtest.NewState(), SkillsScope: "skills", Timeout: time.Second,
		Source: fsource.New(dir, []string{"skills/*.md"}, nil)})
	v.Files(t.Context())

	next := func(change func()) {
		t.Helper()
		since := v.Version()
		got := make(chan Version, 1)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			ver, _ := v.Next(ctx, since)
			got <- ver
		}()
		change()
		select {
		case ver := <-got:
			if ver == since {
				t.Errorf("Next returned the version it was given")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Next did not return after a change")
		}
	}
	next(func() { skills.Put("a", json.RawMessage(`{"id":"a","skill":"# A","registered_at":"t"}`)) })
	next(func() {
		writeFile(t, dir, "skills/b.md", "# B\n")
		v.Files(t.Context())
	})

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if ver, err := v.Next(ctx, v.Version()); err == nil || ver != v.Version() {
		t.Errorf("Next on an ended context = %v, %v; want the same version and an error", ver, err)
	}
}
