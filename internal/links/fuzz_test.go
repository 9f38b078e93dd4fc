package links

import (
	"path"
	"strings"
	"testing"
)

// FuzzResolve checks the rule against path.Clean, an independent
// statement of dot-segment removal: a link without {baseDir} resolves to
// what path.Clean makes of it under the document's folder, or is refused
// because its .. climbs above the root; and what it names never holds a
// segment a reader could take for a separator or a way up.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"references/x.md", "./x.md", "../sib/SKILL.md", "../../x", "x/", "#frag", "x.md#a/../b", "{baseDir}/s.py",
		"a//b", "/abs", "a/%2e%2e/b", "a/%2F", "a\\b", "a\x00b", "", ".", "..", "a/./../b/", strings.Repeat("a", 300),
	} {
		f.Add("skills/pdf", true, s)
		f.Add("pdf/references/forms.md", false, s)
	}
	f.Fuzz(func(t *testing.T, docPath string, folder bool, link string) {
		if t, err := Clean(docPath); err != nil || t.Path != docPath || docPath == "" {
			return // the document is a clean path, as the registry gives it
		}
		doc := Doc{Path: docPath, Folder: folder, SkillDir: docPath}
		got, err := doc.Resolve(link)
		if err != nil {
			return
		}
		for _, seg := range strings.Split(got.Path, "/") {
			if got.Path != "" && (seg == "" || seg == "." || seg == ".." || seg == BaseDir) {
				t.Fatalf("Resolve(%q) from %+v = %q, with segment %q", link, doc, got.Path, seg)
			}
		}
		if strings.ContainsAny(got.Path, "\\#\x00") || hasTrickEscape(got.Path) {
			t.Fatalf("Resolve(%q) from %+v = %q", link, doc, got.Path)
		}
		p, _ := CutFragment(link)
		if p == "" || strings.Contains(p, BaseDir) {
			return
		}
		dir := docPath
		if !folder {
			dir = path.Dir(docPath)
		}
		want := strings.TrimPrefix(path.Clean("/"+dir+"/"+p), "/")
		if got.Path != want {
			t.Fatalf("Resolve(%q) from %+v = %q; path.Clean says %q", link, doc, got.Path, want)
		}
		// Climbing out and back in is refused, never clamped at the root.
		if depth := strings.Count(dir, "/") + 1; strings.Count(p, "..") == 0 && depth > 0 {
			up := strings.Repeat("../", depth+1) + p
			if _, err := doc.Resolve(up); err == nil && len(up) <= MaxPathBytes {
				t.Fatalf("Resolve(%q) from %+v left the root without an error", up, doc)
			}
		}
	})
}
