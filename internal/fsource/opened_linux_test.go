package fsource

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A file deleted or saved over (written to a temporary file, renamed
// onto it) after it was opened is still judged by where it was: inside
// the roots it reads, outside it does not.
func TestOpenedInsideJudgesADeletedFileByWhereItWas(t *testing.T) {
	outside := writeTree(t, map[string]string{"leak.md": "secret\n"})
	dir := writeTree(t, map[string]string{
		"s/deleted.md": "a\n",
		"s/saved.md":   "a\n",
		"s/link.md":    "->" + filepath.Join(outside, "leak.md"),
	})
	src := New(dir, []string{"s/**/*.md"}, nil)
	open := func(name string) (*os.File, string) {
		t.Helper()
		path := filepath.Join(dir, "s", name)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f, path
	}

	f, path := open("deleted.md")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := src.openedInside(path, f); err != nil {
		t.Errorf("a file deleted after its open: %v", err)
	}

	f, path = open("saved.md")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if err := src.openedInside(path, f); err != nil {
		t.Errorf("a file saved over after its open: %v", err)
	}

	f, path = open("link.md") // opens the file outside, through the link
	if err := os.Remove(filepath.Join(outside, "leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := src.openedInside(path, f); !errors.Is(err, ErrEscaped) {
		t.Errorf("a file outside the roots, deleted after its open: %v, want ErrEscaped", err)
	}
}
