package mcpskills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
		"skill://pdf/../odd/SKILL.md":                         "not_found", // a link to odd's SKILL.md (D70), which is not served
		"skill://pdf/../../odd/SKILL.md":                      "invalid_argument",
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
