package fsource

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// An in-place write (same inode, new bytes) is in the very next Fresh,
// without waiting for the watcher's event or its coalescing window
// (docs/decisions.md D68): the watch owns the inotify queue and reads it
// on every call. Each round writes and lists at once, 200 times, in a
// directory made just before the first write too.
func TestFreshSeesAnInPlaceWriteAtOnce(t *testing.T) {
	w, dir, _ := startWatch(t, WatchOptions{})
	if w.Mode() != ModeFSNotify {
		t.Fatalf("mode = %s, want fsnotify (inotify is owned by the watch on Linux)", w.Mode())
	}
	for _, rel := range []string{"a.md", filepath.Join("new", "deep", "b.md")} {
		path := filepath.Join(dir, "skills", rel)
		write(t, path, "")
		id := filepath.ToSlash(rel[:len(rel)-len(".md")])
		if sk, ok := w.Fresh(context.Background()).Skill(id); !ok || sk.Size != 0 {
			t.Fatalf("after creating %s empty: %+v, %v", rel, sk, ok)
		}
		before, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 200; n++ {
			// os.WriteFile truncates and writes the same inode.
			if err := os.WriteFile(path, []byte(fmt.Sprintf("%*s", n, "#")), 0o644); err != nil {
				t.Fatal(err)
			}
			sk, ok := w.Fresh(context.Background()).Skill(id)
			if !ok || sk.Size != int64(n) {
				t.Fatalf("%s: the listing after writing %d bytes in place says %d bytes (found %v)", rel, n, sk.Size, ok)
			}
		}
		after, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before, after) {
			t.Fatalf("%s was replaced, not written in place", rel)
		}
	}
	// A change of permission bits is a new Stamp too.
	path := filepath.Join(dir, "skills", "a.md")
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if sk, _ := w.Fresh(context.Background()).Skill("a"); sk.Stamp.mode.Perm() != 0o600 {
		t.Errorf("the listing after chmod 600 has mode %o", sk.Stamp.mode.Perm())
	}
}

// Nothing changed: Fresh answers from the snapshot it has, whatever the
// watch read from the queue before.
func TestFreshKeepsTheSnapshotWhenNothingChanged(t *testing.T) {
	w, dir, _ := startWatch(t, WatchOptions{})
	write(t, filepath.Join(dir, "skills", "a.md"), "# A\n")
	first := w.Fresh(context.Background())
	for range 50 {
		if again := w.Fresh(context.Background()); again.Version != first.Version {
			t.Fatalf("version %d became %d with no change", first.Version, again.Version)
		}
	}
}

// BenchmarkFreshCheck is the freshness check a listing pays when nothing
// changed (docs/decisions.md D68), at 50 and 500 watched directories of
// one skill each: one read of the inotify queue and one stat per
// directory.
func BenchmarkFreshCheck(b *testing.B) {
	for _, dirs := range []int{50, 500} {
		b.Run(fmt.Sprintf("dirs=%d", dirs), func(b *testing.B) {
			root := b.TempDir()
			for i := range dirs - 1 { // the skills directory itself is the last one
				p := filepath.Join(root, "skills", fmt.Sprintf("d%03d", i), "SKILL.md")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("# x\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			w := NewWatch(New(root, []string{"skills/**/*.md"}, nil), WatchOptions{})
			w.Start(context.Background())
			b.Cleanup(w.Close)
			if w.Mode() != ModeFSNotify || w.watchedDirs != dirs {
				b.Fatalf("mode %s watching %d directories, want fsnotify and %d", w.Mode(), w.watchedDirs, dirs)
			}
			v := w.Fresh(context.Background()).Version
			b.ResetTimer()
			for b.Loop() {
				if w.Fresh(context.Background()).Version != v {
					b.Fatal("rescanned with nothing changed")
				}
			}
		})
	}
}

// With every directory watched, the queue alone tells a listing of files
// made, renamed and removed, in directories made just before too: Fresh
// then stats no directory (D68), and still misses nothing.
func TestFreshSeesEntriesComeAndGoFromTheQueue(t *testing.T) {
	w, dir, _ := startWatch(t, WatchOptions{})
	write(t, filepath.Join(dir, "skills", "keep.md"), "# K\n")
	w.Fresh(context.Background())
	for i := range 50 {
		sub := filepath.Join(dir, "skills", fmt.Sprintf("n%02d", i), "deep")
		write(t, filepath.Join(sub, "a.md"), "# A\n")
		id := fmt.Sprintf("n%02d/deep/a", i)
		if _, ok := w.Fresh(context.Background()).Skill(id); !ok {
			t.Fatalf("round %d: %s made in a new directory is not listed", i, id)
		}
		if err := os.Rename(filepath.Join(sub, "a.md"), filepath.Join(sub, "b.md")); err != nil {
			t.Fatal(err)
		}
		snap := w.Fresh(context.Background())
		if _, ok := snap.Skill(id); ok {
			t.Fatalf("round %d: %s renamed away is still listed", i, id)
		}
		if _, ok := snap.Skill(fmt.Sprintf("n%02d/deep/b", i)); !ok {
			t.Fatalf("round %d: the renamed file is not listed", i)
		}
		if err := os.RemoveAll(filepath.Dir(sub)); err != nil {
			t.Fatal(err)
		}
		if got := len(w.Fresh(context.Background()).Skills); got != 1 {
			t.Fatalf("round %d: %d skills listed after removing the directory, want 1", i, got)
		}
	}
}

// The notifier knows a file is being written from the kernel's queue
// alone: written and still open is Writing, closed by its writer is not
// (docs/decisions.md D68), so the watch's loop can wait for the close.
func TestNotifierFollowsAFileUntilItsWriterClosesIt(t *testing.T) {
	dir := t.TempDir()
	n, err := newNotifier()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	if err := n.Add(dir); err != nil {
		t.Fatal(err)
	}
	if n.Writing() {
		t.Fatal("Writing before anything was written")
	}
	f, err := os.Create(filepath.Join(dir, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("# A, half"); err != nil {
		t.Fatal(err)
	}
	if !n.Writing() {
		t.Error("not Writing after a write to a file its writer holds open")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n.Writing() {
		t.Error("still Writing after the writer closed the file")
	}
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n.Writing() {
		t.Error("Writing after os.WriteFile returned (it closes the file)")
	}
	// Files says the same by path, with the count of the last write, and
	// Forget drops what a scan has covered.
	files, dropped := n.Files()
	a, b := files[filepath.Join(dir, "a.md")], files[filepath.Join(dir, "b.md")]
	if a.Modify == 0 || !a.Began.IsZero() || b.Modify <= a.Modify || b.Last < b.Modify || dropped != 0 {
		t.Errorf("Files: a %+v, b %+v, dropped %d; want both written (b after a), neither held open, none lost", a, b, dropped)
	}
	n.Forget(a.Last)
	if files, _ := n.Files(); len(files) != 1 || files[filepath.Join(dir, "b.md")] != b {
		t.Errorf("after Forget(%d), Files = %+v, want b alone", a.Last, files)
	}
}

// A writer that keeps its file open is held only for a while: the
// watch's loop rescans once the hold may end and lists the file as it is
// (D81), with no other event to wake it.
func TestAFileKeptOpenIsListedAfterTheHold(t *testing.T) {
	w, dir, _ := startWatch(t, WatchOptions{})
	path := filepath.Join(dir, "skills", "log.md")
	write(t, path, "# Log\n")
	w.Fresh(context.Background())
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	if _, err := f.WriteString("one line\n"); err != nil {
		t.Fatal(err)
	}
	if sk, _ := w.Fresh(context.Background()).Skill("log"); sk.Size != 6 {
		t.Fatalf("while its writer holds it open the log is listed with %d bytes, want the 6 it had", sk.Size)
	}
	waitFor(t, w, "the log kept open listed whole after the hold", func(s Snapshot) bool {
		sk, _ := s.Skill("log")
		return sk.Size == 15
	})
}

// A listing that runs while a file is being written lists the file as it
// was before the write began, and a file being made not at all, while a
// file written and closed before the call is listed as it is (D68): so
// no listing and no on-change announcement ever shows the half-written
// file, and a write is one change (docs/decisions.md D81).
func TestFreshListsAFileBeingWrittenAsItWas(t *testing.T) {
	w, dir, rec := startWatch(t, WatchOptions{})
	a := filepath.Join(dir, "skills", "a.md")
	write(t, a, "# A\n\nFirst.")
	before, ok := w.Fresh(context.Background()).Skill("a")
	if !ok {
		t.Fatal("a is not listed")
	}
	// Rewrite a in place as os.WriteFile does, but keep it open half way;
	// make c and keep it open too.
	f, err := os.OpenFile(a, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("# A, ha"); err != nil {
		t.Fatal(err)
	}
	c, err := os.Create(filepath.Join(dir, "skills", "c.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteString("# C"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "skills", "b.md"), "# B\n")
	for range 3 {
		snap := w.Fresh(context.Background())
		if got, _ := snap.Skill("a"); !got.Same(before) {
			t.Fatalf("while a is being written it is listed as %+v, want it as it was: %+v", got, before)
		}
		if _, ok := snap.Skill("c"); ok {
			t.Fatal("c is listed while its writer still has it open with its first bytes")
		}
		if _, ok := snap.Skill("b"); !ok {
			t.Fatal("b, written and closed before the call, is not listed while a is being written")
		}
	}
	if _, err := f.WriteString("lf, and whole."); err != nil {
		t.Fatal(err)
	}
	for _, file := range []*os.File{f, c} {
		if err := file.Close(); err != nil {
			t.Fatal(err)
		}
	}
	snap := w.Fresh(context.Background())
	if got, _ := snap.Skill("a"); got.Size != int64(len("# A, half, and whole.")) {
		t.Fatalf("after its writer closed it, a is listed with %d bytes, want %d", got.Size, len("# A, half, and whole."))
	}
	if _, ok := snap.Skill("c"); !ok {
		t.Fatal("c is not listed after its writer closed it")
	}
	// Every announced snapshot showed a either as it was or whole.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range rec.seen {
		if got, ok := s.Skill("a"); ok && got.Size != before.Size && got.Size != snap.Skills[0].Size {
			t.Errorf("snapshot %d announced a half written: %d bytes", s.Version, got.Size)
		}
		if got, ok := s.Skill("c"); ok && got.Size == 0 {
			t.Errorf("snapshot %d announced c empty", s.Version)
		}
	}
}

// Files are rewritten in place (truncated, then written, then closed, as
// os.WriteFile does), each write followed by a listing, while other
// goroutines list without pause: the listing after each write shows it
// whole (D68), and no listing, whichever moment its scan ran at, and no
// announced snapshot ever shows the file truncated or half written
// (D81). Before D81 a listing during a write announced the truncated
// file, and the write was two changes.
func TestListingsDuringInPlaceWritesNeverShowAHalfFile(t *testing.T) {
	w, dir, rec := startWatch(t, WatchOptions{})
	const rounds = 300
	path := filepath.Join(dir, "skills", "notes.md")
	content := func(n int) string { return fmt.Sprintf("# Notes\n\n%s", strings.Repeat("x", 1+n%7)) }
	sizes := map[int64]bool{}
	for n := range rounds {
		sizes[int64(len(content(n)))] = true
	}
	write(t, path, content(0))
	w.Fresh(context.Background())
	stop := make(chan struct{})
	var listers sync.WaitGroup
	for range 2 {
		listers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if sk, ok := w.Fresh(context.Background()).Skill("notes"); ok && !sizes[sk.Size] {
					t.Errorf("a listing showed notes with %d bytes, which no write left", sk.Size)
				}
			}
		})
	}
	for n := 1; n < rounds; n++ {
		write(t, path, content(n))
		if sk, _ := w.Fresh(context.Background()).Skill("notes"); sk.Size != int64(len(content(n))) {
			t.Errorf("write %d: the listing after it shows %d bytes, want %d", n, sk.Size, len(content(n)))
		}
	}
	close(stop)
	listers.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range rec.seen {
		if sk, ok := s.Skill("notes"); ok && !sizes[sk.Size] {
			t.Errorf("snapshot %d announced notes with %d bytes, which no write left", s.Version, sk.Size)
		}
	}
}
