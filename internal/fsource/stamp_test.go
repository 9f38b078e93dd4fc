package fsource

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A stamp changes with the content and with access: a permission change
// (a file made unreadable) and, where the system reports inodes, a
// replacement by rename with the same size and mtime. An untouched file
// keeps its stamp.
func TestStampFollowsContentAndAccess(t *testing.T) {
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
	stamp := func() Stamp {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return StampOf(fi)
	}
	put(path, "# One\n")
	first := stamp()
	if !stamp().Equal(first) {
		t.Fatal("an untouched file changed its stamp")
	}
	if err := os.Chmod(path, 0o000); err != nil {
		t.Fatal(err)
	}
	if stamp().Equal(first) {
		t.Error("a permission change kept the stamp")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return // no inode or status-change time there: size, mtime and mode decide
	}
	before := stamp()
	next := filepath.Join(dir, "s.md.new")
	put(next, "# Two\n") // same size, same mtime
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if stamp().Equal(before) {
		t.Error("a same-size, same-mtime replacement kept the stamp")
	}
}
