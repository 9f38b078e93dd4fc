package mcpskills

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/lint/linttest"
)

// A SKILL.md folder under a root that the content checks flag is noted
// in its entry's _meta under lint.flagged: note, by skills/list and
// skills/get alike, with the lines of the file; under serve it is not,
// and the page budget counts the note (docs/decisions.md D65).
func TestMCPSkillsNoteAFlaggedFolder(t *testing.T) {
	hostile, err := linttest.Read("hostile", "injection-ignore.md") // name: helper
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	catalogtest.WriteFiles(t, dir, map[string]string{"root/helper/SKILL.md": hostile, "root/helper/notes.md": "# Notes\n"})
	var want []catalog.LintNote
	for _, at := range linttest.Hostile["injection-ignore.md"] {
		want = append(want, catalog.LintNote{Rule: at.Rule, Line: at.Line})
	}
	for _, mode := range []lint.Mode{lint.Note, lint.Serve} {
		t.Run(string(mode), func(t *testing.T) {
			v := catalog.NewView(catalog.ViewConfig{Caller: catalogtest.NewState(), SkillsScope: "skills", PromptsScope: "prompts",
				Timeout: 2 * time.Second, Source: fsource.New(dir, nil, nil, fsource.Roots("root")), Flagged: mode})
			x := New(Config{View: v})
			list, err := x.mcpSkillsList(t.Context(), mcpSkillsListInput{})
			if err != nil || len(list.Skills) != 1 {
				t.Fatalf("skills/list = %+v, %v; want the helper skill", list, err)
			}
			got, err := x.mcpSkillsGet(t.Context(), mcpSkillsGetInput{URI: ptr("skill://helper/SKILL.md")})
			if err != nil {
				t.Fatal(err)
			}
			for name, s := range map[string]mcpSkill{"skills/list": list.Skills[0], "skills/get": got.Skill} {
				b, _ := json.Marshal(s)
				if len(b) > s.jsonBound() {
					t.Errorf("%s: the entry's %d bytes pass its bound %d", name, len(b), s.jsonBound())
				}
				if mode == lint.Serve {
					if s.Meta != nil {
						t.Errorf("serve: %s has _meta %v", name, s.Meta)
					}
					continue
				}
				if d := cmp.Diff(map[string]any{contract.MetaKeyLint: want}, s.Meta); d != "" {
					t.Errorf("note: %s _meta (-want +got):\n%s", name, d)
				}
			}
		})
	}
}
