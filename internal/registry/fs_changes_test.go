package registry

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// A rescan that added, changed and removed files fires one event per id,
// marked "source":"fs", and none for an id a state entry shadows (D21).
func TestFSChangedFiresOneEventPerChangedID(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "shadowed", "# From state")
	t0 := time.Unix(1000, 0)
	old := fsource.Snapshot{
		Skills: []fsource.Skill{
			{ID: "edited", Path: "/s/edited.md", Size: 5, ModTime: t0},
			{ID: "gone", Path: "/s/gone.md", Size: 5, ModTime: t0},
			{ID: "same", Path: "/s/same.md", Size: 5, ModTime: t0},
			{ID: "shadowed", Path: "/s/shadowed.md", Size: 5, ModTime: t0},
		},
		Prompts: []fsource.Prompt{{Name: "p", Description: "old", Path: "/p/p.md", Size: 3, ModTime: t0}},
	}
	updated := fsource.Snapshot{
		Skills: []fsource.Skill{
			{ID: "edited", Path: "/s/edited.md", Size: 9, ModTime: t0.Add(time.Second)},
			{ID: "new", Path: "/s/new.md", Size: 5, ModTime: t0},
			{ID: "same", Path: "/s/same.md", Size: 5, ModTime: t0},
		},
		Prompts: []fsource.Prompt{{Name: "p", Description: "new", Path: "/p/p.md", Size: 3, ModTime: t0}},
	}
	before := len(f.skillEvents.fired())
	f.reg.FSChanged(f.ctx, old, updated)
	want := []string{
		`{"op":"register","id":"edited","source":"fs"}`,
		`{"op":"register","id":"new","source":"fs"}`,
		`{"op":"unregister","id":"gone","source":"fs"}`,
	}
	if diff := cmp.Diff(want, f.skillEvents.fired()[before:]); diff != "" {
		t.Errorf("skill events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`{"op":"register","name":"p","source":"fs"}`}, f.promptEvents.fired()); diff != "" {
		t.Errorf("prompt events (-want +got):\n%s", diff)
	}
}
