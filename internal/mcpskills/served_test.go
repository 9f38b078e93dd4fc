package mcpskills

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// A nested skill shadowed by state is a registered skill of its own, at
// its SKILL.md URI; every URI listed still reads the bytes its digest
// covers.
func TestMCPSkillsNestedShadowedByState(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	f.mustRegisterSkill(t, "pdf/fill", "# Fill, registered\n")
	out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil {
		t.Fatal(err)
	}
	var pdfFiles []string
	for _, s := range out.Skills {
		if s.URI == "skill://pdf/fill/SKILL.md" && len(s.Resources) != 1 {
			t.Errorf("the registered pdf/fill has files %+v", s.Resources)
		}
		if s.URI == "skill://pdf/SKILL.md" {
			for _, r := range s.Resources {
				pdfFiles = append(pdfFiles, r.URI)
			}
		}
	}
	// skill://pdf/fill/SKILL.md is now the registered skill's SKILL.md, so
	// it is no longer listed as a file of pdf, whose other files stay.
	if slices.Contains(pdfFiles, "skill://pdf/fill/SKILL.md") || !slices.Contains(pdfFiles, "skill://pdf/references/forms.md") {
		t.Fatalf("pdf's files = %v", pdfFiles)
	}
	uri := "skill://pdf/fill/SKILL.md"
	read, err := f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &uri})
	if err != nil || !strings.Contains(read.Contents[0].Text, "# Fill, registered") {
		t.Errorf("read %s = %+v, %v", uri, read, err)
	}
	for _, s := range out.Skills {
		for _, res := range s.Resources {
			u := res.URI
			got, err := f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &u})
			if err != nil {
				t.Errorf("read %s: %v", u, err)
				continue
			}
			c := got.Contents[0]
			b := []byte(c.Text)
			if c.Blob != nil {
				b = c.Blob
			}
			if sha(b) != res.Digest || int64(len(b)) != res.Size {
				t.Errorf("%s: read bytes do not match the listed digest and size", u)
			}
		}
	}
}

// Names that need escaping in a URI are listed percent-encoded and read
// back; a folder past the extension's limits, or with frontmatter that
// expands past the bounds, is not served, by skills/get and reads alike.
func TestMCPSkillsOddNamesAndUnservedFolders(t *testing.T) {
	f, dir := mcpSkillsFixture(t)
	// Plain keys keep yaml.v3's own alias guard (a ratio of aliases to
	// nodes) quiet, so the scan loads the skill and the bound is ours.
	var pad strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&pad, "pad%d: %d\n", i, i)
	}
	padding := pad.String()
	catalogtest.WriteFiles(t, dir, map[string]string{
		"root/pdf/templates/Form Template?.md": "# Form\n",
		"root/pdf/templates/résumé.md":         "# CV\n",
		"root/big/SKILL.md":                    "---\nname: big\ndescription: Too many files.\n---\n# Big\n",
		"root/bomb/SKILL.md":                   "---\nname: bomb\ndescription: d\n" + padding + "x0: &a0 [\"" + strings.Repeat("x", 4096) + "\"]\nx1: &a1 [*a0,*a0,*a0,*a0,*a0,*a0,*a0,*a0,*a0]\nx2: &a2 [*a1,*a1,*a1,*a1,*a1,*a1,*a1,*a1,*a1]\nx3: &a3 [*a2,*a2,*a2,*a2,*a2,*a2,*a2,*a2,*a2]\nx4: [*a3,*a3,*a3,*a3,*a3,*a3,*a3,*a3,*a3]\n---\n# Bomb\n",
	})
	for i := range fsource.MaxFolderFiles + 1 {
		catalogtest.WriteFiles(t, dir, map[string]string{fmt.Sprintf("root/big/files/f%03d.txt", i): "x"})
	}
	out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, s := range out.Skills {
		uris = append(uris, s.URI)
		if s.URI != "skill://pdf/SKILL.md" {
			continue
		}
		for _, r := range s.Resources {
			if !strings.Contains(r.URI, "/templates/") {
				continue
			}
			u := r.URI
			got, err := f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &u})
			if err != nil || sha([]byte(got.Contents[0].Text)) != r.Digest {
				t.Errorf("read the listed %s: %+v, %v", u, got, err)
			}
		}
	}
	if slices.Contains(uris, "skill://big/SKILL.md") || slices.Contains(uris, "skill://bomb/SKILL.md") {
		t.Errorf("skills/list = %v: the folder past the limits and the alias bomb are served", uris)
	}
	pdf, err := f.ext.mcpSkillsGet(f.ctx, mcpSkillsGetInput{URI: ptr("skill://pdf/SKILL.md")})
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, r := range pdf.Skill.Resources {
		if strings.Contains(r.URI, "/templates/") {
			templates = append(templates, r.URI)
		}
	}
	if want := []string{"skill://pdf/templates/Form%20Template%3F.md", "skill://pdf/templates/r%C3%A9sum%C3%A9.md"}; !slices.Equal(templates, want) {
		t.Errorf("templates = %q, want %q", templates, want)
	}
	// A folder with such a name is a directory by its encoded URI too.
	catalogtest.WriteFiles(t, dir, map[string]string{"root/pdf/my forms/w-9.md": "# W-9\n"})
	listing, err := f.ext.mcpSkillsDir(f.ctx, mcpSkillsDirInput{URI: ptr("skill://pdf/my%20forms")})
	if err != nil || len(listing.Resources) != 1 || listing.Resources[0].URI != "skill://pdf/my%20forms/w-9.md" || listing.Resources[0].Name != "w-9.md" {
		t.Errorf("directory skill://pdf/my%%20forms = %+v, %v", listing, err)
	}
	if root, err := f.ext.mcpSkillsDir(f.ctx, mcpSkillsDirInput{URI: ptr("skill://pdf")}); err != nil || !slices.ContainsFunc(root.Resources, func(e dirEntry) bool {
		return e.URI == "skill://pdf/my%20forms" && e.Name == "my forms" && e.MimeType == mimeDirectory
	}) {
		t.Errorf("skill://pdf lacks the folder \"my forms\": %+v, %v", root, err)
	}
	for _, uri := range []string{"skill://big/SKILL.md", "skill://bomb/SKILL.md"} {
		_, err := f.ext.mcpSkillsGet(f.ctx, mcpSkillsGetInput{URI: &uri})
		if msg, code := errText(err); code != contract.CodeNotFound || !strings.Contains(msg, "is not served as an MCP skill") {
			t.Errorf("get %s: %s %q", uri, code, msg)
		}
		_, err = f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &uri})
		if msg, code := errText(err); code != contract.CodeNotFound || !strings.Contains(msg, "is not served as an MCP skill") {
			t.Errorf("read %s: %s %q", uri, code, msg)
		}
	}
	files := "skill://big/files/f001.txt"
	if _, err := f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &files}); err == nil {
		t.Error("a file of a folder past the limits was read")
	}
}

// A registered id that cannot name an MCP skill does not take a nested
// folder's SKILL.md URI: that file stays a listed, readable file of the
// enclosing skill.
func TestMCPSkillsUnservedStateDoesNotHideAFile(t *testing.T) {
	f, dir := mcpSkillsFixture(t)
	catalogtest.WriteFiles(t, dir, map[string]string{"root/pdf/old_ref/SKILL.md": "---\nname: old_ref\ndescription: d\n---\n# Old\n"})
	f.mustRegisterSkill(t, "pdf/old_ref", "# Registered, not an Agent Skills name\n")
	pdf, err := f.ext.mcpSkillsGet(f.ctx, mcpSkillsGetInput{URI: ptr("skill://pdf/SKILL.md")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pdf.Skill.Resources {
		if r.URI != "skill://pdf/old_ref/SKILL.md" {
			continue
		}
		u := r.URI
		got, err := f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &u})
		if err != nil || sha([]byte(got.Contents[0].Text)) != r.Digest {
			t.Errorf("read %s = %+v, %v; want the listed bytes", u, got, err)
		}
		return
	}
	t.Errorf("pdf's files lack skill://pdf/old_ref/SKILL.md: %+v", pdf.Skill.Resources)
}
