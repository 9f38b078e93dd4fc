package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// A kept body is served while its file is unchanged; an edit (size or
// mtime) is read again at once; a removed file is not served from memory.
func TestFileBodiesFollowTheFile(t *testing.T) {
	c := newFileBodies(1 << 20)
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
		if got, _, err := c.read(path, fsource.ReadBody); err != nil || got != "# One\n" {
			t.Fatalf("read = %q, %v", got, err)
		}
	}
	write("# Two, longer\n", t0)
	if got, _, _ := c.read(path, fsource.ReadBody); got != "# Two, longer\n" {
		t.Errorf("after a size change read = %q", got)
	}
	write("# Six, longer\n", t0.Add(time.Second))
	if got, _, _ := c.read(path, fsource.ReadBody); got != "# Six, longer\n" {
		t.Errorf("after an mtime change read = %q", got)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.read(path, fsource.ReadBody); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of a removed file: %v, want not-exist", err)
	}
	none := newFileBodies(0)
	write("# Kept nowhere\n", t0)
	if got, _, err := none.read(path, fsource.ReadBody); err != nil || got != "# Kept nowhere\n" || len(none.byID) != 0 {
		t.Errorf("a zero budget read = %q, %v, kept %d", got, err, len(none.byID))
	}
}

// A file replaced by a rename with the same size and mtime (as cp -p or
// rsync leave it) is read again, not served from memory.
func TestFileBodiesSeeASameSizeSameMtimeReplacement(t *testing.T) {
	c := newFileBodies(1 << 20)
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
	if got, _, err := c.read(path, fsource.ReadBody); err != nil || got != "# Old body\n" {
		t.Fatalf("read = %q, %v", got, err)
	}
	next := filepath.Join(dir, "s.md.new")
	put(next, "# New body\n") // same size, same mtime
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.read(path, fsource.ReadBody); err != nil || got != "# New body\n" {
		t.Errorf("after a same-size, same-mtime replacement read = %q, %v; want the new body", got, err)
	}
}

// A listed file is not read once it leads out of its root, though the
// listing (the watch's snapshot) has not caught up yet: whether the file
// itself was swapped for a link or a directory on its path was, and
// whether its body was kept before the swap.
func TestFileBodiesRefuseASwap(t *testing.T) {
	for _, swap := range []string{"the file", "its directory"} {
		t.Run(swap, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(dir, "outside")
			secret := filepath.Join(outside, "forms.md")
			path := filepath.Join(dir, "root", "skills", "pdf", "forms.md")
			for p, body := range map[string]string{secret: "# Secret\n\nAPI_KEY=x\n", path: "# PDF\n\nForms.\n"} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				old := time.Now().Add(-time.Hour) // old enough to be kept
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
			src := fsource.New(filepath.Join(dir, "root"), []string{"skills/**/*.md"}, nil)
			if skills, skips := src.Skills(); len(skills) != 1 || skills[0].Path != path {
				t.Fatalf("listed %+v, skipped %+v", skills, skips)
			}
			c := newFileBodies(1 << 20)
			if got, _, err := c.read(path, src.ReadBody); err != nil || got != "# PDF\n\nForms.\n" {
				t.Fatalf("before the swap: %q, %v", got, err)
			}
			switch swap {
			case "the file":
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(secret, path); err != nil {
					t.Fatal(err)
				}
			case "its directory":
				if err := os.RemoveAll(filepath.Dir(path)); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(outside, filepath.Dir(path)); err != nil {
					t.Fatal(err)
				}
			}
			got, _, err := c.read(path, src.ReadBody)
			if !errors.Is(err, fsource.ErrEscaped) || got != "" {
				t.Errorf("after swapping %s for a link out of the root: %q, %v; want fsource.ErrEscaped", swap, got, err)
			}
		})
	}
}
