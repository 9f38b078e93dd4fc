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
		"pdf-tool/references/bad#name.md": "invalid id: invalid path (segment 3 of \"pdf-tool/references/bad#name.md\")",
	} {
		if !strings.Contains(reasons[path], w) {
			t.Errorf("skip of %s = %q; want it to contain %q", path, reasons[path], w)
		}
	}
	if len(reasons) != 4 {
		t.Errorf("skips = %q; want the four above (hidden files are left out without a word)", reasons)
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
