package fsource

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStaticPrefix(t *testing.T) {
	tests := []struct {
		pattern, want string
	}{
		{"dir/sub/file.md", "dir/sub/"},
		{"dir/sub/*.md", "dir/sub/"},
		{"dir/**/*.md", "dir/"},
		{"dir/file*.md", "dir/"},
		{"dir/file?.md", "dir/"},
		{"dir/{a,b}.md", "dir/"},
		{"dir/[ab].md", "dir/"},
		{"/abs/dir/**/*.md", "/abs/dir/"},
		{"/abs/file.md", "/abs/"},
		{"/*.md", "/"},
		{"*.md", ""},
		{"**/*.md", ""},
		{"[abc].md", ""},
		{"file.md", ""},
		{`/abs/\[x]/*.md`, "/abs/[x]/"},
		{`/abs/a\*b/c\{d}/*.md`, "/abs/a*b/c{d}/"},
		{`/abs/\\/*.md`, `/abs/\/`},
		{`/abs/x\`, "/abs/"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			if got := staticPrefix(tt.pattern); got != tt.want {
				t.Errorf("staticPrefix(%q) = %q, want %q", tt.pattern, got, tt.want)
			}
		})
	}
}

func TestDeriveID(t *testing.T) {
	tests := []struct {
		name, prefix, path, want string
	}{
		{"nested", "/b/my-skills/", "/b/my-skills/foo/bar.md", "foo/bar"},
		{"top", "/b/my-skills/", "/b/my-skills/foo.md", "foo"},
		{"only one .md stripped", "/b/", "/b/x.md.md", "x.md"},
		{"other extension kept", "/b/", "/b/notes.txt", "notes.txt"},
		{"upper-case extension kept", "/b/", "/b/x.MD", "x.MD"},
		{"backslash becomes slash", "/b/", `/b/a\b.md`, "a/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := deriveID(tt.prefix, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("deriveID(%q, %q) = %q, want %q", tt.prefix, tt.path, got, tt.want)
			}
		})
	}
	t.Run("path outside the prefix", func(t *testing.T) {
		_, err := deriveID("/b/a/", "/b/c/y.md")
		want := "cannot derive an id: /b/c/y.md is not under the pattern's static prefix /b/a/"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v, want %s", err, want)
		}
	})
}

func TestComparePathsIsComponentOrder(t *testing.T) {
	paths := []string{"/b/a-b.md", "/b/a/x.md", "/b/a.md", "/b/a", "/b/B.md", "/b/a/x/y.md"}
	slices.SortFunc(paths, comparePaths)
	// Component order: "x" < "x.md", so a/x/y.md comes before a/x.md.
	want := []string{"/b/B.md", "/b/a", "/b/a/x/y.md", "/b/a/x.md", "/b/a-b.md", "/b/a.md"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("sorted paths (-want +got):\n%s", diff)
	}
}
