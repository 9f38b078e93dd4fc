package fsource

import (
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRead compares a read of a 4 KiB skill with the check of what
// was opened (Source.ReadBody) and without it (ReadBody), for a root
// and two allow_paths directories.
func BenchmarkRead(b *testing.B) {
	body := "---\ndescription: d\n---\n# T\n\n" + strings.Repeat("word ", 800)
	dir := writeTree(b, map[string]string{"skills/team/guides/a.md": body, "x/": "", "y/": ""})
	src := New(dir, []string{"skills/**/*.md"}, nil, AllowPaths(filepath.Join(dir, "x"), filepath.Join(dir, "y")))
	path := filepath.Join(dir, "skills", "team", "guides", "a.md")
	for _, c := range []struct {
		name string
		read func(string) (string, error)
	}{{"unchecked", ReadBody}, {"checked", src.ReadBody}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.read(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
