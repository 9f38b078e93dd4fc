package ids

import (
	"strings"
	"testing"
)

// FuzzFileID checks the file id rule (D69) on any path: an id is its own
// id (so a read may name a file by either), an id never escapes its path
// (it is the path, or a prefix of it that drops ".md" or "/SKILL.md"),
// and Assign over the path and its neighbours is one to one, with every
// collision holding all the paths that map onto its id.
func FuzzFileID(f *testing.F) {
	for _, s := range append(seeds, "a/SKILL.md", "a/README.md", "a/b.MD", "a/scripts/x.py", "a/b/skill.md") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		id, err := FileID(rel)
		if err != nil {
			return
		}
		if again, err := FileID(id); err != nil || again != id {
			t.Fatalf("FileID(%q) = %q, but FileID(%q) = %q, %v", rel, id, id, again, err)
		}
		if id != rel && !strings.EqualFold(rel, id+".md") && !strings.EqualFold(rel, id+"/SKILL.md") {
			t.Fatalf("FileID(%q) = %q: neither the path nor the path less .md or /SKILL.md", rel, id)
		}
		paths := []string{rel, id, id + ".md", id + ".MD", id + "/SKILL.md", strings.ToUpper(rel)}
		byID, collisions, _ := Assign(paths)
		seen := map[string]bool{}
		for id, p := range byID {
			if got, _ := FileID(p); got != id {
				t.Fatalf("Assign gave %q the id %q; FileID says %q", p, id, got)
			}
			seen[p] = true
		}
		for _, c := range collisions {
			if len(c.Paths) < 2 || byID[c.ID] != "" {
				t.Fatalf("collision %+v: fewer than two paths, or its id is served", c)
			}
			for _, p := range c.Paths {
				if got, _ := FileID(p); got != c.ID || seen[p] {
					t.Fatalf("collision %+v holds %q (id %q, served %v)", c, p, got, seen[p])
				}
			}
		}
	})
}
