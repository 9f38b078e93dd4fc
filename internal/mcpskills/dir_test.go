package mcpskills

import (
	"slices"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
)

// resources/directory/read: a skill's directories list their direct
// children as skills/get lists its files; anything else is not a
// directory.
func TestMCPSkillsDirectories(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	dir := func(uri string, limit *int) (mcpSkillsDirOutput, error) {
		return f.ext.mcpSkillsDir(f.ctx, mcpSkillsDirInput{URI: &uri, Limit: limit})
	}
	list := func(out mcpSkillsDirOutput) []string {
		var got []string
		for _, e := range out.Resources {
			got = append(got, e.Name+" "+e.MimeType)
		}
		return got
	}
	for uri, want := range map[string][]string{
		"skill://pdf":               {"SKILL.md text/markdown", "assets inode/directory", "fill inode/directory", "references inode/directory", "scripts inode/directory"},
		"skill://pdf/":              {"SKILL.md text/markdown", "assets inode/directory", "fill inode/directory", "references inode/directory", "scripts inode/directory"},
		"skill://pdf/references":    {"forms.md text/markdown", "tables.md text/markdown"},
		"skill://pdf/fill":          {"SKILL.md text/markdown"},
		"skill://team/deploy-guide": {"SKILL.md text/markdown"},
	} {
		out, err := dir(uri, nil)
		if err != nil || !slices.Equal(list(out), want) {
			t.Errorf("directory %s = %q, %v; want %q", uri, list(out), err, want)
		}
	}
	// A file's type comes from its extension (the system's table for
	// .bin, so only the name is checked here).
	if out, err := dir("skill://pdf/assets", nil); err != nil || len(out.Resources) != 1 || out.Resources[0].Name != "logo.bin" || out.Resources[0].URI != "skill://pdf/assets/logo.bin" {
		t.Errorf("directory skill://pdf/assets = %+v, %v", out, err)
	}
	out, _ := dir("skill://pdf/references", nil)
	if out.Resources[0].URI != "skill://pdf/references/forms.md" {
		t.Errorf("a child's uri = %q", out.Resources[0].URI)
	}
	for _, uri := range []string{"skill://team", "skill://pdf/SKILL.md", "skill://pdf/nothing", "skill://nope", "skill://legacy_notes", "skill://odd"} {
		_, err := dir(uri, nil)
		if msg, code := errText(err); code != contract.CodeNotFound || !strings.Contains(msg, "is not a directory of a skill") {
			t.Errorf("directory %s: %s %q", uri, code, msg)
		}
	}
	for _, uri := range []string{"iii://pdf", "skill://", "skill://pdf/../odd"} {
		if _, err := dir(uri, nil); err == nil {
			t.Errorf("directory %q was read", uri)
		}
	}
	two := 2
	first, err := dir("skill://pdf", &two)
	if err != nil || len(first.Resources) != 2 || first.NextCursor == "" {
		t.Fatalf("first page = %+v, %v", first, err)
	}
	uri := "skill://pdf"
	rest, err := f.ext.mcpSkillsDir(f.ctx, mcpSkillsDirInput{URI: &uri, Limit: &two, Cursor: &first.NextCursor})
	if err != nil || len(rest.Resources) != 2 || rest.Resources[0].Name != "fill" {
		t.Errorf("second page = %+v, %v", rest, err)
	}
}
