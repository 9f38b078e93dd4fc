package fsource

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// watchTimeout bounds every wait for the watch to see a change.
const watchTimeout = 10 * time.Second

// startWatch watches skills/**/*.md and prompts/*.md under a temp dir and
// records every OnChange.
func startWatch(t *testing.T, opts WatchOptions) (*Watch, string, *changes) {
	t.Helper()
	dir := t.TempDir()
	rec := &changes{}
	opts.OnChange = rec.add
	w := NewWatch(New(dir, []string{"skills/**/*.md"}, []string{"prompts/*.md"}), opts)
	w.Start(context.Background())
	t.Cleanup(w.Close)
	return w, dir, rec
}

type changes struct {
	mu     sync.Mutex
	seen   []Snapshot
	signal chan struct{} // closed and replaced on every add
}

func (c *changes) add(_, updated Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, updated)
	if c.signal != nil {
		close(c.signal)
	}
	c.signal = make(chan struct{})
}

// waitVersion waits until OnChange has been called with version v.
func (c *changes) waitVersion(t *testing.T, v uint64) {
	t.Helper()
	deadline := time.NewTimer(watchTimeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		if c.signal == nil {
			c.signal = make(chan struct{})
		}
		ch := c.signal
		done := len(c.seen) > 0 && c.seen[len(c.seen)-1].Version >= v
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("OnChange never saw version %d", v)
		}
	}
}

func (c *changes) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// waitFor waits until cond holds on the snapshot, re-checking at each
// change.
func waitFor(t *testing.T, w *Watch, what string, cond func(Snapshot) bool) {
	t.Helper()
	deadline := time.NewTimer(watchTimeout)
	defer deadline.Stop()
	for {
		ch := w.Changed()
		if cond(w.Snapshot()) {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("the watch never saw %s (mode %s); snapshot %+v", what, w.Mode(), w.Snapshot())
		}
	}
}

func skillIDs(s Snapshot) []string {
	ids := make([]string, len(s.Skills))
	for i, sk := range s.Skills {
		ids[i] = sk.ID
	}
	return ids
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Files added, edited and removed under the roots, including in a
// directory created after the watch started and under a root that did not
// exist yet, show in the snapshot (docs/decisions.md D20).
func TestWatchSeesFilesComeAndGo(t *testing.T) {
	for _, mode := range []string{ModeFSNotify, ModePoll} {
		t.Run(mode, func(t *testing.T) {
			onModeClock(t, mode == ModePoll, func(t *testing.T) { watchFilesComeAndGo(t, mode) })
		})
	}
}

// onModeClock runs f on a fake clock (testing/synctest) in poll mode,
// whose ticks are timers and whose rescans only stat and read files; and
// on the real clock with fsnotify, whose reads of a kernel descriptor
// never block durably in a bubble (its tests wait on each change).
func onModeClock(t *testing.T, poll bool, f func(t *testing.T)) {
	if poll {
		synctest.Test(t, f)
		return
	}
	f(t)
}

func watchFilesComeAndGo(t *testing.T, mode string) {
	w, dir, rec := startWatch(t, WatchOptions{ForcePoll: mode == ModePoll, PollInterval: 20 * time.Millisecond})
	if w.Mode() != mode {
		t.Fatalf("mode = %s, want %s", w.Mode(), mode)
	}
	// The skills root does not exist yet.
	write(t, filepath.Join(dir, "skills", "a.md"), "# A\n")
	waitFor(t, w, "a new root's file", func(s Snapshot) bool { return slices.Equal(skillIDs(s), []string{"a"}) })

	write(t, filepath.Join(dir, "skills", "team", "deep", "b.md"), "# B\n")
	waitFor(t, w, "a file in a new directory", func(s Snapshot) bool { return slices.Equal(skillIDs(s), []string{"a", "team/deep/b"}) })

	before, _ := w.Snapshot().Skill("a")
	write(t, filepath.Join(dir, "skills", "a.md"), "# A, edited and longer\n")
	waitFor(t, w, "an edit", func(s Snapshot) bool { sk, _ := s.Skill("a"); return sk.Size != before.Size })

	if err := os.Remove(filepath.Join(dir, "skills", "a.md")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "a removal", func(s Snapshot) bool { return slices.Equal(skillIDs(s), []string{"team/deep/b"}) })

	write(t, filepath.Join(dir, "prompts", "p.md"), "---\ndescription: a prompt\n---\nBody\n")
	waitFor(t, w, "a prompt", func(s Snapshot) bool { return len(s.Prompts) == 1 && s.Prompts[0].Name == "p" })
	// Every published snapshot goes through OnChange, the last one
	// included (changes made within one poll may share a rescan).
	rec.waitVersion(t, w.Snapshot().Version)
}

// A burst of writes is one rescan, not one per event.
func TestWatchCoalescesBursts(t *testing.T) {
	w, dir, rec := startWatch(t, WatchOptions{})
	if w.Mode() != ModeFSNotify {
		t.Fatalf("fsnotify unavailable here (mode %s)", w.Mode())
	}
	for i := range 20 {
		write(t, filepath.Join(dir, "skills", "burst", string(rune('a'+i))+".md"), "# x\n")
	}
	waitFor(t, w, "the whole burst", func(s Snapshot) bool { return len(s.Skills) == 20 })
	if n := rec.count(); n > 5 {
		t.Errorf("%d rescans published for one burst of 20 files; want them coalesced", n)
	}
}

func TestSnapshotSkillFindsByID(t *testing.T) {
	s := Snapshot{Skills: []Skill{{ID: "a"}, {ID: "b/c"}, {ID: "d"}}}
	if sk, ok := s.Skill("b/c"); !ok || sk.ID != "b/c" {
		t.Errorf("Skill(b/c) = %+v, %v", sk, ok)
	}
	if _, ok := s.Skill("b"); ok {
		t.Error("Skill(b) found a skill that is not there")
	}
}

// Fresh sees a file added or removed just before the call, without waiting
// for the watcher: listings keep the 0.2 behaviour of globbing per call.
func TestWatchFreshSeesChangesAtOnce(t *testing.T) {
	// A poll interval far beyond the test: only Fresh can see the changes.
	w, dir, _ := startWatch(t, WatchOptions{ForcePoll: true, PollInterval: time.Hour})
	write(t, filepath.Join(dir, "skills", "a.md"), "# A\n")
	if got := skillIDs(w.Fresh(context.Background())); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after adding a.md (a new root): %v", got)
	}
	write(t, filepath.Join(dir, "skills", "x", "y", "b.md"), "# B\n")
	if got := skillIDs(w.Fresh(context.Background())); !slices.Equal(got, []string{"a", "x/y/b"}) {
		t.Fatalf("after adding x/y/b.md: %v", got)
	}
	if err := os.Remove(filepath.Join(dir, "skills", "a.md")); err != nil {
		t.Fatal(err)
	}
	if got := skillIDs(w.Fresh(context.Background())); !slices.Equal(got, []string{"x/y/b"}) {
		t.Fatalf("after removing a.md: %v", got)
	}
	v := w.Snapshot().Version
	w.Fresh(context.Background())
	if w.Snapshot().Version != v {
		t.Error("Fresh rescanned although nothing changed")
	}
}

// A root that is a symbolic link, and a linked directory inside a root,
// are watched and stamped like real ones; a directory removed and made
// again is watched again.
func TestWatchFollowsLinkedDirectoriesAndRecreatedOnes(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	write(t, filepath.Join(real, "inner", "x.md"), "# X\n")
	if err := os.Symlink(real, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	w := NewWatch(New(dir, []string{"linked/**/*.md"}, nil), WatchOptions{})
	w.Start(context.Background())
	t.Cleanup(w.Close)
	if w.Mode() != ModeFSNotify {
		t.Fatalf("mode = %s, want fsnotify", w.Mode())
	}
	write(t, filepath.Join(real, "inner", "y.md"), "# Y\n")
	waitFor(t, w, "a file under a linked root", func(s Snapshot) bool {
		return slices.Equal(skillIDs(s), []string{"inner/x", "inner/y"})
	})
	write(t, filepath.Join(real, "z.md"), "# Z\n")
	if got := skillIDs(w.Fresh(context.Background())); !slices.Contains(got, "z") {
		t.Errorf("Fresh under a linked root missed z.md: %v", got)
	}

	if err := os.RemoveAll(filepath.Join(real, "inner")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "the removal", func(s Snapshot) bool { return slices.Equal(skillIDs(s), []string{"z"}) })
	write(t, filepath.Join(real, "inner", "again.md"), "# Again\n")
	waitFor(t, w, "a file in the re-made directory", func(s Snapshot) bool { return slices.Contains(skillIDs(s), "inner/again") })
	write(t, filepath.Join(real, "inner", "later.md"), "# Later\n")
	waitFor(t, w, "a later file in the re-made directory (its watch is back)", func(s Snapshot) bool {
		return slices.Contains(skillIDs(s), "inner/later")
	})
}

// A file replaced by another of the same size and mtime (what cp -p and
// rsync leave) is a change: the snapshot moves on.
func TestWatchSeesSameSizeSameMtimeReplacement(t *testing.T) {
	w, dir, rec := startWatch(t, WatchOptions{ForcePoll: true, PollInterval: time.Hour})
	path := filepath.Join(dir, "skills", "a.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(p, body string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write(path, "# Old\n")
	w.Rescan(context.Background())
	before := w.Snapshot()
	sk, ok := before.Skill("a")
	if !ok {
		t.Fatalf("skill a not listed: %+v", before.Skills)
	}
	tmp := filepath.Join(dir, "a.md.tmp")
	write(tmp, "# New\n")
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	w.Rescan(context.Background())
	after := w.Snapshot()
	again, _ := after.Skill("a")
	if after.Version == before.Version || again.Stamp.Equal(sk.Stamp) {
		t.Fatalf("replacement with the same size and mtime not seen: version %d -> %d", before.Version, after.Version)
	}
	if again.Size != sk.Size || !again.ModTime.Equal(sk.ModTime) {
		t.Fatalf("the test's replacement changed size or mtime: %d %v -> %d %v", sk.Size, sk.ModTime, again.Size, again.ModTime)
	}
	rec.waitVersion(t, after.Version)
}
