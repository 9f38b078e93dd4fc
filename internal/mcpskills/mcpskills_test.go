package mcpskills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// fixture is an Extension over a view of an in-memory state and, when
// given, files.
type fixture struct {
	ctx  context.Context
	view *catalog.View
	ext  *Extension
}

func newFixture(t *testing.T, src *fsource.Source) *fixture {
	t.Helper()
	v := catalog.NewView(catalog.ViewConfig{Caller: catalogtest.NewState(), SkillsScope: "skills", PromptsScope: "prompts",
		Timeout: 2 * time.Second, Source: src})
	return &fixture{ctx: t.Context(), view: v, ext: New(Config{View: v})}
}

// mustRegisterSkill stores a skill row, as skills::register does.
func (f *fixture) mustRegisterSkill(t *testing.T, id, body string) {
	t.Helper()
	if err := f.view.PutSkill(f.ctx, catalog.SkillRow{ID: id, Skill: body, RegisteredAt: "2026-05-04T19:22:41.123456789+00:00"}); err != nil {
		t.Fatalf("register %q: %v", id, err)
	}
}

// errText returns err's message and code, "" for nil.
func errText(err error) (msg, code string) {
	if err == nil {
		return "", ""
	}
	return err.Error(), contract.CodeOf(err)
}

func ptr[T any](v T) *T { return &v }

// mcpSkillsFixture is an extension with a root holding a skill folder (a
// reference, a script, a binary asset, a nested skill, a dot file), a
// folder whose name differs from its frontmatter, and two registered
// skills, one whose id cannot name an MCP skill.
func mcpSkillsFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	dir := t.TempDir()
	catalogtest.WriteFiles(t, dir, map[string]string{
		"root/pdf/SKILL.md":             "---\nname: pdf\ndescription: \"Fill PDF forms: AcroForm and XFA.\"\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1\"\n---\n# PDF\n\nSee [forms](references/forms.md).\n",
		"root/pdf/references/forms.md":  "# Forms\n\nField names.\n",
		"root/pdf/scripts/fill.py":      "print('fill')\n",
		"root/pdf/fill/SKILL.md":        "---\nname: fill\ndescription: Fill one form.\n---\n# Fill\n",
		"root/pdf/.hidden":              "not a file of the skill\n",
		"root/odd/SKILL.md":             "---\nname: other\ndescription: A folder named apart from its skill.\n---\n# Odd\n",
		"root/pdf/assets/logo.bin":      "",
		"root/pdf/references/tables.md": "# Tables\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "root/pdf/assets/logo.bin"), []byte{0x89, 'P', 'N', 'G', 0xff, 0x00}, 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fsource.New(dir, nil, nil, fsource.Roots("root")))
	f.mustRegisterSkill(t, "team/deploy-guide", "# Deploy guide\n\nShip a release: build, tag, roll out.\n")
	f.mustRegisterSkill(t, "legacy_notes", "# Notes\n")
	return f, dir
}

// front decodes an entry's frontmatter.
func front(t *testing.T, s mcpSkill) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(s.Frontmatter, &m); err != nil {
		t.Fatalf("%s: frontmatter %s: %v", s.URI, s.Frontmatter, err)
	}
	return m
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

func TestMCPSkillsListServesFoldersAndBodies(t *testing.T) {
	f, dir := mcpSkillsFixture(t)
	out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, s := range out.Skills {
		uris = append(uris, s.URI)
	}
	// Sorted by id; legacy_notes and odd are not Agent Skills names, and
	// references/forms is a file of pdf, not a skill.
	want := []string{"skill://pdf/SKILL.md", "skill://pdf/fill/SKILL.md", "skill://team/deploy-guide/SKILL.md"}
	if !slices.Equal(uris, want) {
		t.Fatalf("skills/list uris = %q, want %q", uris, want)
	}

	pdf := out.Skills[0]
	pdfFront := front(t, pdf)
	if pdfFront["name"] != "pdf" || pdfFront["description"] != "Fill PDF forms: AcroForm and XFA." || pdfFront["license"] != "Apache-2.0" {
		t.Errorf("pdf frontmatter = %s", pdf.Frontmatter)
	}
	if m, _ := pdfFront["metadata"].(map[string]any); m["version"] != "2.1" {
		t.Errorf("pdf metadata = %v", pdfFront["metadata"])
	}
	var files []string
	for _, r := range pdf.Resources {
		files = append(files, strings.TrimPrefix(r.URI, "skill://pdf/"))
		disk, err := os.ReadFile(filepath.Join(dir, "root/pdf", strings.TrimPrefix(r.URI, "skill://pdf/")))
		if err != nil {
			t.Fatal(err)
		}
		if r.Digest != sha(disk) || r.Size != int64(len(disk)) {
			t.Errorf("%s: digest %s size %d, want %s %d", r.URI, r.Digest, r.Size, sha(disk), len(disk))
		}
	}
	wantFiles := []string{"SKILL.md", "assets/logo.bin", "fill/SKILL.md", "references/forms.md", "references/tables.md", "scripts/fill.py"}
	if !slices.Equal(files, wantFiles) {
		t.Errorf("pdf files = %q, want %q (dot files left out, the nested skill's included)", files, wantFiles)
	}

	// A registered skill: a SKILL.md synthesised from its body, whose
	// digest is that of what resources/read returns.
	dg := out.Skills[2]
	dgFront := front(t, dg)
	if dgFront["name"] != "deploy-guide" || dgFront["description"] != "Ship a release: build, tag, roll out." || len(dgFront) != 2 {
		t.Errorf("deploy-guide frontmatter = %s", dg.Frontmatter)
	}
	read, err := f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &dg.URI})
	if err != nil {
		t.Fatal(err)
	}
	text := read.Contents[0].Text
	if len(dg.Resources) != 1 || dg.Resources[0].Digest != sha([]byte(text)) || dg.Resources[0].Size != int64(len(text)) {
		t.Errorf("deploy-guide resources = %+v; read %q", dg.Resources, text)
	}
	fm, body, ok := skillmd.SplitFrontmatter([]byte(text))
	var parsed map[string]any
	if !ok || yaml.Unmarshal(fm, &parsed) != nil || parsed["name"] != "deploy-guide" || parsed["description"] != dgFront["description"] || len(parsed) != len(dgFront) {
		t.Errorf("synthesised SKILL.md frontmatter %q does not parse to the entry's %s", fm, dg.Frontmatter)
	}
	if !strings.HasSuffix(string(body), "# Deploy guide\n\nShip a release: build, tag, roll out.\n") {
		t.Errorf("synthesised SKILL.md body = %q", body)
	}
}

func TestMCPSkillsReadAndGet(t *testing.T) {
	f, dir := mcpSkillsFixture(t)
	read := func(uri string) (mcpSkillsReadOutput, error) {
		return f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &uri})
	}
	skillMD, _ := os.ReadFile(filepath.Join(dir, "root/pdf/SKILL.md"))
	if out, err := read("skill://pdf/SKILL.md"); err != nil || out.Contents[0].Text != string(skillMD) || out.Contents[0].MimeType != "text/markdown" {
		t.Errorf("read SKILL.md = %+v, %v; want the file byte for byte", out, err)
	}
	if out, err := read("skill://pdf/references/forms.md"); err != nil || out.Contents[0].Text != "# Forms\n\nField names.\n" {
		t.Errorf("read a reference = %+v, %v", out, err)
	}
	if out, err := read("skill://pdf/assets/logo.bin"); err != nil || out.Contents[0].Text != "" || string(out.Contents[0].Blob) != "\x89PNG\xff\x00" {
		t.Errorf("read a binary file = %+v, %v; want a blob", out, err)
	}
	if out, err := read("skill://pdf/fill/SKILL.md"); err != nil || !strings.Contains(out.Contents[0].Text, "name: fill") {
		t.Errorf("read the nested skill = %+v, %v", out, err)
	}
	for uri, wantCode := range map[string]string{
		"skill://pdf/.hidden":                                 "not_found",
		"skill://pdf/nothing.md":                              "not_found",
		"skill://team/deploy-guide/x.md":                      "not_found", // a body has no other files
		"skill://nope/SKILL.md":                               "not_found",
		"skill://legacy_notes/SKILL.md":                       "not_found",
		"skill://pdf/../odd/SKILL.md":                         "invalid_argument",
		"skill://pdf//SKILL.md":                               "invalid_argument",
		"skill://pdf/a\\b":                                    "invalid_argument",
		"skill://pdf/a\x00b":                                  "invalid_argument",
		"iii://pdf/SKILL.md":                                  "invalid_argument",
		"skill://pdf":                                         "invalid_argument",
		"skill://" + strings.Repeat("a/", 20000) + "SKILL.md": "invalid_argument",
		"skill://pdf/a%2Fb":                                   "invalid_argument", // an escaped / is no name
		"skill://pdf/%2e%2e/odd/SKILL.md":                     "invalid_argument",
		"skill://pdf/bad%zz":                                  "invalid_argument",
	} {
		_, err := read(uri)
		if msg, code := errText(err); code != wantCode {
			t.Errorf("read %q: %s %q, want %s", uri, code, msg, wantCode)
		}
	}

	get := func(uri string) (mcpSkillsGetOutput, error) {
		return f.ext.mcpSkillsGet(f.ctx, mcpSkillsGetInput{URI: &uri})
	}
	if out, err := get("skill://pdf/SKILL.md"); err != nil || len(out.Skill.Resources) != 6 {
		t.Errorf("get pdf = %+v, %v", out, err)
	}
	for uri, want := range map[string]string{
		"skill://odd/SKILL.md":                  `its frontmatter name "other" is not its folder name "odd"`,
		"skill://legacy_notes/SKILL.md":         `"legacy_notes" (the id's last segment) is not an Agent Skills name`,
		"skill://pdf/references/forms/SKILL.md": "it is a file of the skill folder that holds it",
		"skill://pdf/references/forms.md":       "is not a skill's SKILL.md URI",
		"skill://missing/SKILL.md":              "Skill not found: missing",
	} {
		_, err := get(uri)
		if msg, _ := errText(err); !strings.Contains(msg, want) {
			t.Errorf("get %q: %q, want it to say %q", uri, msg, want)
		}
	}
	if _, err := f.ext.mcpSkillsGet(f.ctx, mcpSkillsGetInput{}); err == nil {
		t.Error("get without a uri succeeded")
	}
}

// A change shows in the next listing's digest: a folder file edited, a
// registered body replaced (the digests kept between listings are keyed
// by what they cover).
func TestMCPSkillsDigestsFollowChanges(t *testing.T) {
	f, dir := mcpSkillsFixture(t)
	digests := func() map[string]string {
		out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, s := range out.Skills {
			for _, r := range s.Resources {
				m[r.URI] = r.Digest
			}
		}
		return m
	}
	before := digests()
	forms := filepath.Join(dir, "root/pdf/references/forms.md")
	if err := os.WriteFile(forms, []byte("# Forms, edited and longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.mustRegisterSkill(t, "team/deploy-guide", "# Deploy guide\n\nA new body.\n")
	after := digests()
	if after["skill://pdf/references/forms.md"] != sha([]byte("# Forms, edited and longer\n")) {
		t.Errorf("edited file digest = %s", after["skill://pdf/references/forms.md"])
	}
	if after["skill://team/deploy-guide/SKILL.md"] == before["skill://team/deploy-guide/SKILL.md"] {
		t.Error("a new body kept the old digest")
	}
	if after["skill://pdf/scripts/fill.py"] != before["skill://pdf/scripts/fill.py"] {
		t.Error("an unchanged file's digest changed")
	}
}

func TestMCPSkillsListPages(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	f.ext.pageSize = 2
	first, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil || len(first.Skills) != 2 || first.NextCursor == "" {
		t.Fatalf("first page = %+v, %v", first, err)
	}
	second, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Cursor: &first.NextCursor})
	if err != nil || len(second.Skills) != 1 || second.NextCursor != "" || second.Skills[0].URI != "skill://team/deploy-guide/SKILL.md" {
		t.Fatalf("second page = %+v, %v", second, err)
	}
	// A limit given overrides page_size; out of range it is refused.
	one := 1
	if out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Limit: &one}); err != nil || len(out.Skills) != 1 || out.NextCursor == "" {
		t.Errorf("limit 1 = %+v, %v", out, err)
	}
	for _, bad := range []int{0, -1, maxSkillsPage + 1} {
		if _, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Limit: &bad}); err == nil {
			t.Errorf("limit %d was accepted", bad)
		}
	}
	garbage := "not-a-cursor"
	if _, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Cursor: &garbage}); err == nil {
		t.Error("a garbage cursor was accepted")
	}
}

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

// Without page_size or a limit, skills/list still never passes the
// response budget: a page ends before it would, with a cursor to the
// rest, and following the cursors lists every skill once.
func TestMCPSkillsListPagesByBudget(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	for i := range 12 {
		f.mustRegisterSkill(t, fmt.Sprintf("bulk/skill-%02d", i), fmt.Sprintf("# Skill %d\n\nA <b>&</b> \u2028 body %s.\n", i, strings.Repeat("x", 300)))
	}
	all, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil || all.NextCursor != "" || len(all.Skills) != 15 {
		t.Fatalf("with the default budget: %d skills, cursor %q, %v", len(all.Skills), all.NextCursor, err)
	}
	f.ext.maxResponse = listEnvelopeBytes + 3000
	seen := map[string]int{}
	pages := 0
	var cursor *string
	for {
		out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		b, _ := json.Marshal(out)
		if len(b) > f.ext.maxResponse {
			t.Errorf("page %d is %d bytes, over the budget of %d", pages, len(b), f.ext.maxResponse)
		}
		for _, s := range out.Skills {
			seen[s.URI]++
		}
		if out.NextCursor == "" {
			break
		}
		if len(out.Skills) == 0 || pages > 20 {
			t.Fatalf("page %d: %d skills, cursor %q", pages, len(out.Skills), out.NextCursor)
		}
		cursor = &out.NextCursor
	}
	if pages < 3 || len(seen) != 15 {
		t.Errorf("%d pages, %d distinct skills; want several pages and all 15", pages, len(seen))
	}
	for uri, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", uri, n)
		}
	}
	// The bound an entry is cut by is never below its encoding, whatever
	// encoding/json escapes.
	odd := mcpSkill{URI: "skill://a&b/<c>/SKILL.md", Frontmatter: json.RawMessage("{\"description\": \"<b>&</b> \u2028 \\\" é\"}"),
		Resources: []mcpSkillFile{{URI: "skill://a&b/<c>/x\u2029.md", Digest: "sha256:00", Size: 1 << 40}}}
	for _, s := range append(all.Skills, odd) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", s.URI, err)
		}
		if s.jsonBound() < len(b) {
			t.Errorf("%s: bound %d below its %d encoded bytes", s.URI, s.jsonBound(), len(b))
		}
	}
}

// The extension's functions carry their descriptions and schemas.
func TestFunctionsTable(t *testing.T) {
	f := newFixture(t, nil)
	var got []string
	for _, fn := range f.ext.Functions() {
		got = append(got, fn.ID+" | "+fn.Description)
		if fn.Handler == nil || len(fn.RequestFormat) == 0 || len(fn.ResponseFormat) == 0 {
			t.Errorf("%s: handler or schemas missing", fn.ID)
		}
		if len(fn.Metadata) != 0 {
			t.Errorf("%s has metadata %s, want none", fn.ID, fn.Metadata)
		}
	}
	want := []string{
		"skills::mcp-skills-list | Internal: returns the MCP Skills extension's skills/list result: every skill as skill://<id>/SKILL.md with its frontmatter and files (uri, sha256 digest, size).",
		"skills::mcp-skills-get | Internal: returns the MCP Skills extension's skills/get result for one skill://<id>/SKILL.md.",
		"skills::mcp-skills-read | Internal: reads one file of an MCP skill (skill://<id>/<file>) as the MCP resources/read contents envelope.",
		"skills::mcp-skills-dir | Internal: lists the direct children of a directory of an MCP skill (skill://<id> or skill://<id>/<folder>) as the MCP Skills extension's resources/directory/read result.",
	}
	if !slices.Equal(want, got) {
		t.Errorf("functions = %q, want %q", got, want)
	}
}
