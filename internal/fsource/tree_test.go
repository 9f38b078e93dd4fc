package fsource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree creates files (relative path -> content) under a fresh temp
// directory and returns the directory. A path ending in "/" makes an
// empty directory; content "->target" makes a symbolic link.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// skipLines renders skips as "kind path: reason" with dir written as {dir},
// so expectations can be written independently of the temp directory.
func skipLines(dir string, skips []Skip) []string {
	var out []string
	for _, s := range skips {
		out = append(out, strings.ReplaceAll(s.Kind+" "+s.Path+": "+s.Reason, dir, "{dir}"))
	}
	return out
}
