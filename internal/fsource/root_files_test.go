package fsource

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every file of a skill folder is served under the id ids.FileID gives its
// path (D69): capitals and other extensions by their path as written,
// today's ids unchanged; hidden files left out; a collision and an
// oversized file skipped with the reason, and FolderFiles (the MCP Skills
// extension's listing) leaves out the same files.
func TestRootServesEveryFileOfASkillFolder(t *testing.T) {
	big := strings.Repeat("x", MaxBodyBytes+1)
	dir := writeTree(t, map[string]string{
		"r/pdf-tool/SKILL.md":                    skillMD("pdf-tool", "Fill PDF forms.", "# PDF\n"),
		"r/pdf-tool/README.md":                   "# Readme\n",
		"r/pdf-tool/references/API_REFERENCE.md": "# API\n",
		"r/pdf-tool/references/forms.md":         "# Forms\n",
		"r/pdf-tool/scripts/fill_form.py":        "print('fill')\n",
		"r/pdf-tool/assets/template.json":        "{}\n",
		"r/pdf-tool/.git/config":                 "[core]\n",
		"r/pdf-tool/.DS_Store":                   "x",
		"r/pdf-tool/notes.md":                    "# Notes\n",
		"r/pdf-tool/notes.MD":                    "# Notes again\n",
		"r/pdf-tool/references/huge.md":          big,
		"r/pdf-tool/references/fits.md":          "---\ndescription: " + strings.Repeat("d", 100) + "\n---\n" + strings.Repeat("y", MaxBodyBytes),
		"r/pdf-tool/references/bad#name.md":      "# Hash\n",
		"r/pdf-tool/assets/logo.png":             "\x89PNG\r\n\x1a\n\xff",
		"r/pdf-tool/assets/big.bin":              strings.Repeat("\xff", MaxBodyBytes+1),
		"r/other/SKILL.md":                       skillMD("other", "Other.", "# Other\n"),
	})
	src := New(dir, nil, nil, Roots("r"))
	skills, skips := src.Skills()
	var got []string
	for _, s := range skills {
		got = append(got, s.ID+" "+strings.TrimPrefix(s.Path, dir+"/r/"))
	}
	want := []string{
		"other other/SKILL.md",
		"pdf-tool pdf-tool/SKILL.md",
		"pdf-tool/README.md pdf-tool/README.md",
		"pdf-tool/assets/logo.png pdf-tool/assets/logo.png",
		"pdf-tool/assets/template.json pdf-tool/assets/template.json",
		"pdf-tool/references/API_REFERENCE.md pdf-tool/references/API_REFERENCE.md",
		"pdf-tool/references/fits pdf-tool/references/fits.md",
		"pdf-tool/references/forms pdf-tool/references/forms.md",
		"pdf-tool/scripts/fill_form.py pdf-tool/scripts/fill_form.py",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	reasons := map[string]string{}
	for _, sk := range skips {
		if sk.Warning {
			t.Errorf("unexpected warning for %s: %s", sk.Path, sk.Reason)
		}
		reasons[strings.TrimPrefix(sk.Path, dir+"/r/")] = sk.Reason
	}
	collision := `"pdf-tool/notes.MD" and "pdf-tool/notes.md" map onto one id "pdf-tool/notes", so none of them is served`
	for path, w := range map[string]string{
		"pdf-tool/notes.md":               collision,
		"pdf-tool/notes.MD":               collision,
		"pdf-tool/references/huge.md":     "too large to serve (262145 bytes; max 262144, the body limit)",
		"pdf-tool/assets/big.bin":         "too large to serve (262145 bytes; max 262144, the body limit)",
		"pdf-tool/references/bad#name.md": "invalid id: invalid path (segment 3 of \"pdf-tool/references/bad#name.md\")",
	} {
		if !strings.Contains(reasons[path], w) {
			t.Errorf("skip of %s = %q; want it to contain %q", path, reasons[path], w)
		}
	}
	if len(reasons) != 5 {
		t.Errorf("skips = %q; want the five above (hidden files are left out without a word)", reasons)
	}

	files, err := src.FolderFiles(context.Background(), dir+"/r/pdf-tool")
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
	}
	var wantRels []string
	for _, w := range want {
		if p, ok := strings.CutPrefix(strings.Fields(w)[1], "pdf-tool/"); ok {
			wantRels = append(wantRels, p)
		}
	}
	slices.Sort(wantRels)
	if diff := cmp.Diff(wantRels, rels); diff != "" {
		t.Errorf("FolderFiles serves another set than the listing (-listing +FolderFiles):\n%s", diff)
	}
}

// Loading is lenient where the Agent Skills client guide is (D31, D69): a
// name that differs from its folder, a long description and unknown keys
// warn and the skill is served; only frontmatter that does not parse and
// a missing description skip it.
func TestRootSkillFrontmatterIsLenient(t *testing.T) {
	long := strings.Repeat("d", 1100)
	dir := writeTree(t, map[string]string{
		"r/misnamed/SKILL.md": skillMD("other", "Named differently.", "# A\n"),
		"r/long/SKILL.md":     skillMD("long", long, "# B\n"),
		"r/extra/SKILL.md":    "---\nname: extra\ndescription: Extra keys.\ntype: reference\nauthor: me\nlicense: MIT\nversion: 1.0.0\nallowed-tools: Read\nargument-hint: x\n---\n# C\n",
		"r/broken/SKILL.md":   "---\nname: [unclosed\n---\n# D\n",
		"r/nodesc/SKILL.md":   "---\nname: nodesc\n---\n# E\n",
	})
	skills, skips := New(dir, nil, nil, Roots("r")).Skills()
	var served []string
	for _, s := range skills {
		served = append(served, s.ID)
	}
	if diff := cmp.Diff([]string{"extra", "long", "misnamed"}, served); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, sk := range skips {
		kind := "skip"
		if sk.Warning {
			kind = "warn"
		}
		got[strings.TrimPrefix(sk.Path, dir+"/r/")] = kind + ": " + sk.Reason
	}
	want := map[string]string{
		"misnamed/SKILL.md": `warn: name "other" differs from its folder name "misnamed"`,
		"long/SKILL.md":     "warn: description is 1100 characters; at most 1024",
		"extra/SKILL.md":    `warn: unknown frontmatter keys "author", "type": not an Agent Skills field, a Claude Code extension or a tool skill key, so ignored; custom data goes under metadata`,
		"broken/SKILL.md":   "skip: invalid YAML frontmatter: ",
		"nodesc/SKILL.md":   "skip: the frontmatter has no description",
	}
	for path, w := range want {
		if !strings.HasPrefix(got[path], w) {
			t.Errorf("%s: %q, want %q", path, got[path], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("reports %q; want only those above", got)
	}
}
