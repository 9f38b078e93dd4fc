package registry

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A kept body is served while its file is unchanged; an edit (size or
// mtime) is read again at once; a removed file is not served from memory.
func TestFSBodiesFollowTheFile(t *testing.T) {
	c := newFSBodies(1 << 20)
	path := filepath.Join(t.TempDir(), "s.md")
	write := func(body string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour) // older than the racy window
	write("# One\n", t0)
	for range 2 {
		if got, err := c.read(path, allowAll); err != nil || got != "# One\n" {
			t.Fatalf("read = %q, %v", got, err)
		}
	}
	write("# Two, longer\n", t0)
	if got, _ := c.read(path, allowAll); got != "# Two, longer\n" {
		t.Errorf("after a size change read = %q", got)
	}
	write("# Six, longer\n", t0.Add(time.Second))
	if got, _ := c.read(path, allowAll); got != "# Six, longer\n" {
		t.Errorf("after an mtime change read = %q", got)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.read(path, allowAll); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of a removed file: %v, want not-exist", err)
	}
	none := newFSBodies(0)
	write("# Kept nowhere\n", t0)
	if got, err := none.read(path, allowAll); err != nil || got != "# Kept nowhere\n" || len(none.byID) != 0 {
		t.Errorf("a zero budget read = %q, %v, kept %d", got, err, len(none.byID))
	}
}

func allowAll(string) bool { return true }

// A file replaced by a rename with the same size and mtime (as cp -p or
// rsync leave it) is read again, not served from memory.
func TestFSBodiesSeeASameSizeSameMtimeReplacement(t *testing.T) {
	c := newFSBodies(1 << 20)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.md")
	t0 := time.Now().Add(-time.Hour)
	put := func(p, body string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, t0, t0); err != nil {
			t.Fatal(err)
		}
	}
	put(path, "# Old body\n")
	if got, err := c.read(path, allowAll); err != nil || got != "# Old body\n" {
		t.Fatalf("read = %q, %v", got, err)
	}
	next := filepath.Join(dir, "s.md.new")
	put(next, "# New body\n") // same size, same mtime
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if got, err := c.read(path, allowAll); err != nil || got != "# New body\n" {
		t.Errorf("after a same-size, same-mtime replacement read = %q, %v; want the new body", got, err)
	}
}

// A listed file swapped for a link out of its root is not read, even
// though the listing (the watch's snapshot) has not caught up yet.
func TestFSBodiesRefuseASwappedLink(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "outside.md")
	if err := os.WriteFile(secret, []byte("API_KEY=x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "root", "a.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, path); err != nil {
		t.Fatal(err)
	}
	_, err := newFSBodies(1<<20).read(path, func(string) bool { return false })
	if !errors.Is(err, errEscaped) {
		t.Errorf("read of a link out of its root: %v, want errEscaped", err)
	}
}
