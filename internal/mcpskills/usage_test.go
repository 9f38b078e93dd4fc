package mcpskills

import (
	"testing"
)

// skills/list counts the skills on its page as listed, and a read of a
// SKILL.md counts a read of its skill; a supporting file is no read of
// the skill (docs/decisions.md D84).
func TestMCPSkillsCountTheirAnswers(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	if _, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{}); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"skill://pdf/SKILL.md", "skill://pdf/references/forms.md"} {
		if _, err := f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: ptr(uri)}); err != nil {
			t.Fatal(err)
		}
	}
	rec := f.view.Usage().Record("r")
	want := map[string][2]uint64{"pdf": {1, 1}, "pdf/fill": {1, 0}, "team/deploy-guide": {1, 0}}
	got := map[string][2]uint64{}
	for id, row := range rec.Skills {
		got[id] = [2]uint64{row.Listed, row.Read}
	}
	if len(got) != len(want) {
		t.Errorf("usage rows %v; want %v (listed, read)", got, want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: listed, read = %v; want %v", id, got[id], w)
		}
	}
}
