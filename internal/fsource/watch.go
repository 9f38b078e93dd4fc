package fsource

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
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
	mode    string
	changed chan struct{} // closed and replaced when snap changes

	watcher     *fsnotify.Watcher
	watchedDirs int // directories asked to be watched, for the log
	cancel      context.CancelFunc
	done        chan struct{}
}

// NewWatch returns a Watch over src; Start takes the first snapshot.
func NewWatch(src *Source, opts WatchOptions) *Watch {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Watch{src: src, opts: opts, log: opts.Logger, changed: make(chan struct{})}
}

// Start takes the first snapshot and starts following changes. ctx bounds
// the first scan only.
func (w *Watch) Start(ctx context.Context) {
	stamps := w.src.stampDirs()
	snap := w.scan(ctx)
	snap.Version = 1
	mode := ModePoll
	if !w.opts.ForcePoll {
		if watcher, err := fsnotify.NewWatcher(); err != nil {
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
	w.mu.Lock()
	w.snap, w.stamps, w.mode = snap, stamps, mode
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

// Fresh returns the snapshot after making sure no directory it read has
// changed since: each is stat'ed (a directory's mtime moves when an entry
// is added, removed or renamed), and a change found rescans at once. So a
// file added just before a call is listed by that call, as when the
// overlay globbed on every call, for the price of one stat per directory;
// the watcher still announces it (D21). Edits to files already listed need
// no rescan: their bodies are read fresh.
func (w *Watch) Fresh(ctx context.Context) Snapshot {
	w.mu.Lock()
	stamps := w.stamps
	w.mu.Unlock()
	if stamps.current() {
		return w.Snapshot()
	}
	w.scanMu.Lock()
	defer w.scanMu.Unlock()
	w.mu.Lock()
	stamps = w.stamps
	w.mu.Unlock()
	if !stamps.current() { // not already rescanned by another caller
		w.rescanLocked(ctx)
	}
	return w.Snapshot()
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
	var events <-chan fsnotify.Event
	var errs <-chan error
	var tick <-chan time.Time
	if w.watcher != nil {
		events, errs = w.watcher.Events, w.watcher.Errors
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
// come from so a test can feed it events under a fake clock.
func (w *Watch) follow(ctx context.Context, events <-chan fsnotify.Event, errs <-chan error, tick <-chan time.Time) {
	var coalesce *time.Timer
	var fire <-chan time.Time
	watchFailed := false
	for {
		select {
		case <-ctx.Done():
			if coalesce != nil {
				coalesce.Stop()
			}
			return
		case <-tick:
			w.rescan(ctx)
		case _, ok := <-events:
			if !ok {
				return
			}
			// New directories join the watch at the rescan that follows;
			// files made in them before that are found by the rescan.
			if fire == nil {
				coalesce = time.NewTimer(coalesceWindow)
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
			fire, coalesce = nil, nil
			if err := w.syncWatches(); err != nil && !watchFailed {
				// Listings still see every change (Fresh); only the
				// on-change events of those directories may come late.
				w.log.Warn("some directories could not be watched", zap.Error(err))
				watchFailed = true
			}
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
	stamps := w.src.stampDirs() // before the scan: a change during it is seen next time
	next := w.scan(ctx)
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	w.stamps = stamps
	old := w.snap
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
	var errs []error
	for dir := range want {
		if !watched[dir] {
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
