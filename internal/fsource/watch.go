package fsource

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Watch modes.
const (
	ModeFSNotify = "fsnotify" // kernel notifications on every directory under the roots
	ModePoll     = "poll"     // a rescan every poll interval (watches could not be set)
)

// coalesceWindow is how long a burst of file events is gathered before one
// rescan (docs/decisions.md D20).
const coalesceWindow = 50 * time.Millisecond

// maxWriteHold is the longest the watch's loop holds a rescan for a file
// still being written (notifier.Writing): a writer that keeps its file
// open (a log) is scanned at least this often.
const maxWriteHold = time.Second

// DefaultPollInterval is the rescan period when watches cannot be set
// (the fs_poll_ms config key).
const DefaultPollInterval = 2 * time.Second

// Snapshot is the overlay's content at one moment: what a scan of every
// pattern found.
type Snapshot struct {
	Version     uint64
	Skills      []Skill // sorted by id
	SkillSkips  []Skip
	Prompts     []Prompt // sorted by name
	PromptSkips []Skip
}

// Skill returns the skill with that id.
func (s Snapshot) Skill(id string) (Skill, bool) {
	i, ok := slices.BinarySearchFunc(s.Skills, id, func(sk Skill, id string) int {
		switch {
		case sk.ID < id:
			return -1
		case sk.ID > id:
			return 1
		}
		return 0
	})
	if !ok {
		return Skill{}, false
	}
	return s.Skills[i], true
}

// WatchOptions configure a Watch.
type WatchOptions struct {
	// PollInterval is the rescan period in poll mode; zero means
	// DefaultPollInterval.
	PollInterval time.Duration
	// ForcePoll skips fsnotify (for tests and file systems without
	// notifications).
	ForcePoll bool
	// CoalesceWindow is how long the watch's own loop gathers events
	// before it rescans; zero means 50 ms (D20). Listings do not wait for
	// it (Fresh, D68); a test that must see only what listings rescan
	// makes it long.
	CoalesceWindow time.Duration
	// OnChange is called after each rescan that changed the snapshot, on
	// the goroutine that rescanned: the watch's own, or a caller of
	// Rescan or Fresh. Rescans are serialised, so calls never overlap,
	// and it runs with the scan lock held: it must return quickly and
	// must not call Rescan or Fresh. Work on a change belongs on a
	// goroutine of the caller's (the worker's fan-out, docs/data-path.md).
	OnChange func(old, updated Snapshot)
	Logger   *zap.Logger
}

// Watch keeps a Snapshot of a Source current: it rescans the patterns
// when files under their roots change (fsnotify, with new directories
// joining the watch and bursts coalesced), or on a timer where watches
// cannot be set. It owns its goroutine: Start it, then Close it.
type Watch struct {
	src  *Source
	opts WatchOptions
	log  *zap.Logger

	scanMu sync.Mutex // one rescan at a time

	mu      sync.Mutex
	snap    Snapshot
	stamps  dirStamps // the directories the snapshot read, as they were just before
	covered uint64    // the notifier's count when the snapshot's rescan began
	exact   bool      // every directory read is watched by an exact notifier
	mode    string
	changed chan struct{} // closed and replaced when snap changes

	watcher     notifier
	writing     func() bool     // the notifier's Writing; nil in poll mode
	held        map[string]held // files listed as an earlier scan saw them (D81); under scanMu
	holding     chan struct{}   // a rescan held files: the loop rescans once they may be taken
	watchedDirs int             // directories asked to be watched, for the log; under scanMu
	watchFailed bool            // some directory could not be watched (warned once); under scanMu
	cancel      context.CancelFunc
	done        chan struct{}
}

// NewWatch returns a Watch over src; Start takes the first snapshot.
func NewWatch(src *Source, opts WatchOptions) *Watch {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.CoalesceWindow <= 0 {
		opts.CoalesceWindow = coalesceWindow
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Watch{src: src, opts: opts, log: opts.Logger, changed: make(chan struct{}), holding: make(chan struct{}, 1)}
}

// Start takes the first snapshot and starts following changes. ctx bounds
// the first scan only.
func (w *Watch) Start(ctx context.Context) {
	mode := ModePoll
	if !w.opts.ForcePoll {
		if watcher, err := newNotifier(); err != nil {
			w.log.Warn("file watching unavailable; polling instead", zap.Error(err), zap.Duration("every", w.opts.PollInterval))
		} else {
			w.watcher = watcher
			if err := w.syncWatches(); err != nil {
				w.log.Warn("file watching unavailable; polling instead", zap.Error(err), zap.Duration("every", w.opts.PollInterval))
				_ = watcher.Close()
				w.watcher = nil
			} else {
				mode = ModeFSNotify
			}
		}
	}
	// Watches were set before the first scan, from a count of 0, so a
	// change during it is counted and the first listing after it rescans
	// (D68).
	exact := w.watcher != nil && w.watcher.Exact()
	stamps := w.src.stampDirs()
	snap := w.scan(ctx)
	snap.Version = 1
	w.mu.Lock()
	w.snap, w.stamps, w.exact, w.mode = snap, stamps, exact, mode
	w.mu.Unlock()
	w.log.Info("watching fs sources", zap.String("mode", mode), zap.Int("directories", w.watchedDirs))
	runCtx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.done = make(chan struct{})
	go w.run(runCtx)
}

// Close stops the watch and waits for its goroutine.
func (w *Watch) Close() {
	if w.cancel == nil {
		return
	}
	w.cancel()
	<-w.done
	if w.watcher != nil {
		_ = w.watcher.Close()
	}
}

// Snapshot returns the current snapshot.
func (w *Watch) Snapshot() Snapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.snap
}

// Fresh returns the snapshot after making sure nothing it read has
// changed since, and rescans at once when something has (D21, D68):
//   - the kernel's event queue: the notifier reads whatever is pending and
//     counts it; a count past the one the snapshot's scan began from means
//     a file under a watched directory was written, made, removed or
//     changed in its attributes since, in place (same inode, new bytes)
//     included. On Linux the watch owns the queue, so a write that
//     returned before the call is counted by it;
//   - where the queue cannot say (poll mode, a directory the kernel could
//     not watch, systems where fsnotify owns the queue), each directory
//     the snapshot read is stat'ed too: a directory's mtime moves when an
//     entry is added, removed or renamed.
//
// So a file added or written just before a call is listed as it is by
// that call, for one read of the queue (and, where it cannot say, one
// stat per directory), never a stat per file; the watcher still
// announces the change (D21).
func (w *Watch) Fresh(ctx context.Context) Snapshot {
	if w.current() {
		return w.Snapshot()
	}
	w.scanMu.Lock()
	defer w.scanMu.Unlock()
	if !w.current() { // not already rescanned by another caller
		w.rescanLocked(ctx)
	}
	return w.Snapshot()
}

// current reports whether the snapshot has seen every change: no event
// counted since its scan began, and every directory it read as stamped.
func (w *Watch) current() bool {
	seen := w.seen()
	w.mu.Lock()
	stamps, covered, exact := w.stamps, w.covered, w.exact
	w.mu.Unlock()
	return seen == covered && (exact || stamps.current())
}

// seen is the notifier's count of events, after reading the pending
// ones; 0 without a notifier (poll mode).
func (w *Watch) seen() uint64 {
	if w.watcher == nil {
		return 0
	}
	return w.watcher.Seen()
}

// Changed returns a channel closed at the next change of the snapshot.
func (w *Watch) Changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

// Mode is ModeFSNotify or ModePoll, once started.
func (w *Watch) Mode() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mode
}

// run follows changes until ctx ends.
func (w *Watch) run(ctx context.Context) {
	defer close(w.done)
	var events <-chan struct{}
	var errs <-chan error
	var tick <-chan time.Time
	if w.watcher != nil {
		events, errs = w.watcher.Wake(), w.watcher.Errors()
		w.writing = w.watcher.Writing
	} else {
		t := time.NewTicker(w.opts.PollInterval)
		defer t.Stop()
		tick = t.C
	}
	w.follow(ctx, events, errs, tick)
}

// follow is run's loop over its inputs: a rescan at every tick and at
// every watch error, and one per coalesce window after file events, the
// window starting at the first event after a rescan (so a steady stream of
// events still rescans once per window). It is apart from where the inputs
// come from so a test can feed it events under a fake clock. While a file
// is still being written (its writer has not closed it), the window is
// extended, up to maxWriteHold, so the rescan sees the file whole and a
// write announces one change, not one per half (docs/decisions.md D68).
func (w *Watch) follow(ctx context.Context, events <-chan struct{}, errs <-chan error, tick <-chan time.Time) {
	var coalesce, release *time.Timer
	var fire, expire <-chan time.Time
	var opened time.Time // when the current window opened
	for {
		select {
		case <-ctx.Done():
			if coalesce != nil {
				coalesce.Stop()
			}
			if release != nil {
				release.Stop()
			}
			return
		case <-w.holding:
			// A rescan held files (D81): rescan when the last of them
			// may be taken, whatever else comes.
			if expire == nil {
				release = time.NewTimer(maxWriteHold)
				expire = release.C
			}
		case <-expire:
			release, expire = nil, nil
			w.rescan(ctx)
		case <-tick:
			w.rescan(ctx)
		case _, ok := <-events:
			if !ok {
				return
			}
			// New directories join the watch at the rescan that follows;
			// files made in them before that are found by the rescan.
			if fire == nil {
				opened = time.Now()
				coalesce = time.NewTimer(w.opts.CoalesceWindow)
				fire = coalesce.C
			}
		case err, ok := <-errs:
			if !ok {
				return
			}
			// An overflow or a watch that failed: rescan, nothing is lost.
			w.log.Warn("file watch error; rescanning", zap.Error(err))
			w.rescan(ctx)
		case <-fire:
			if w.writing != nil && w.writing() && time.Since(opened) < maxWriteHold {
				coalesce = time.NewTimer(w.opts.CoalesceWindow)
				fire = coalesce.C
				continue
			}
			fire, coalesce = nil, nil
			w.rescan(ctx)
		}
	}
}

// Rescan scans the tree now and returns once the snapshot is current
// (skills::roots::rescan).
func (w *Watch) Rescan(ctx context.Context) { w.rescan(ctx) }

// rescan takes a new snapshot and, when it differs, publishes it and
// calls OnChange.
func (w *Watch) rescan(ctx context.Context) {
	w.scanMu.Lock()
	defer w.scanMu.Unlock()
	w.rescanLocked(ctx)
}

func (w *Watch) rescanLocked(ctx context.Context) {
	// The count first, then the watches, then the scan (D68): a change
	// counted later rescans next time, and a directory made before the
	// count is watched before the scan reads it, so a change in it after
	// the scan is counted.
	covered := w.seen()
	err := w.syncWatches()
	if err != nil && !w.watchFailed {
		// Listings still see every entry made or removed there (Fresh
		// then stats each directory); an in-place edit there waits for
		// the next rescan, and the on-change events may come late.
		w.log.Warn("some directories could not be watched", zap.Error(err))
		w.watchFailed = true
	}
	exact := err == nil && w.watcher != nil && w.watcher.Exact()
	stamps := w.src.stampDirs() // before the scan: a change during it is seen next time
	next := w.scan(ctx)
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	old, prev := w.snap, w.covered
	w.mu.Unlock()
	if w.watcher != nil {
		if held := w.unsettled(old, next, covered, prev); held != nil {
			next = next.holding(old, held)
		}
	}
	w.mu.Lock()
	w.stamps, w.covered, w.exact = stamps, covered, exact
	if old.Same(next) {
		w.mu.Unlock()
		return
	}
	next.Version = old.Version + 1
	w.snap = next
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	if w.opts.OnChange != nil {
		w.opts.OnChange(old, next)
	}
}

func (w *Watch) scan(ctx context.Context) Snapshot { return w.src.Scan(ctx) }

// Scan lists every pattern and root once, as a Snapshot without a
// version.
func (s *Source) Scan(ctx context.Context) Snapshot {
	skills, skillSkips := s.SkillsContext(ctx)
	prompts, promptSkips := s.PromptsContext(ctx)
	return Snapshot{Skills: skills, SkillSkips: skillSkips, Prompts: prompts, PromptSkips: promptSkips}
}

// Empty reports whether the source has nothing to list: no patterns and
// no roots.
func (s *Source) Empty() bool {
	return len(s.skillPatterns)+len(s.promptPatterns)+len(s.rootDirs) == 0
}

// syncWatches watches every directory under the patterns' roots (real
// directories only, at most MaxDepth deep, at most max_files of them), and
// the nearest existing ancestor of a root that does not exist yet, so its
// creation is seen.
func (w *Watch) syncWatches() error {
	if w.watcher == nil {
		return nil
	}
	want := map[string]bool{}
	dirs, missing := w.src.dirsUnderRoots()
	for _, dir := range dirs {
		want[dir] = true
	}
	for _, root := range missing {
		if dir := existingAncestor(root); dir != "" {
			want[dir] = true
		}
	}
	// The watcher's own list is the truth: a directory removed (and
	// perhaps made again) lost its watch with it.
	watched := map[string]bool{}
	for _, dir := range w.watcher.WatchList() {
		watched[dir] = true
	}
	// An exact notifier adds every directory again: adding is idempotent
	// for the same directory, and a directory removed and made again under
	// its old path is watched at once, before the kernel reports the old
	// watch gone (D68).
	again := w.watcher.Exact()
	var errs []error
	for dir := range want {
		if !watched[dir] || again {
			if err := w.watcher.Add(dir); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for dir := range watched {
		if !want[dir] {
			_ = w.watcher.Remove(dir)
		}
	}
	w.watchedDirs = len(want)
	return errors.Join(errs...)
}

// Same reports whether two scans found the same files in the same state
// and the same skips.
func (a Snapshot) Same(b Snapshot) bool {
	return slices.EqualFunc(a.Skills, b.Skills, Skill.Same) && slices.EqualFunc(a.Prompts, b.Prompts, Prompt.Same) &&
		slices.Equal(a.SkillSkips, b.SkillSkips) && slices.Equal(a.PromptSkips, b.PromptSkips)
}

// Same reports whether two listings of a skill name the same file,
// unchanged: the one judgement of "this file changed" (its Stamp), with
// what the scan read of it (a SKILL.md's frontmatter).
func (s Skill) Same(o Skill) bool {
	return s.ID == o.ID && s.Path == o.Path && s.Size == o.Size && s.ModTime.Equal(o.ModTime) && s.Stamp.Equal(o.Stamp) && s.Root == o.Root &&
		s.SkillFile == o.SkillFile && s.Name == o.Name && s.Description == o.Description
}

// Same is Skill.Same for prompts.
func (p Prompt) Same(o Prompt) bool {
	return p.Name == o.Name && p.Path == o.Path && p.Size == o.Size && p.ModTime.Equal(o.ModTime) && p.Stamp.Equal(o.Stamp) &&
		p.Description == o.Description
}
