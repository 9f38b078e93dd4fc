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
	t0 := time.Unix(1_700_000_000, 0)
	write("# One\n", t0)
	for range 2 {
		if got, err := c.read(path); err != nil || got != "# One\n" {
			t.Fatalf("read = %q, %v", got, err)
		}
	}
	write("# Two, longer\n", t0)
	if got, _ := c.read(path); got != "# Two, longer\n" {
		t.Errorf("after a size change read = %q", got)
	}
	write("# Six, longer\n", t0.Add(time.Second))
	if got, _ := c.read(path); got != "# Six, longer\n" {
		t.Errorf("after an mtime change read = %q", got)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.read(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of a removed file: %v, want not-exist", err)
	}
	none := newFSBodies(0)
	write("# Kept nowhere\n", t0)
	if got, err := none.read(path); err != nil || got != "# Kept nowhere\n" || len(none.byID) != 0 {
		t.Errorf("a zero budget read = %q, %v, kept %d", got, err, len(none.byID))
	}
}
