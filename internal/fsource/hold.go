package fsource

import (
	"cmp"
	"slices"
	"time"
)

// held is a file a rescan lists as an earlier scan saw it: base is the
// count that scan began at, since when the file was first held.
type held struct {
	base  uint64
	since time.Time
}

// unsettled names the files the scan next, begun at the count covered,
// may have read half written, so that they are listed as old lists them
// (D81); prev is the count old's scan began at. A file is held while
//   - a writer holds it open, for at most maxWriteHold from its first
//     write (a log kept open is taken as it is);
//   - it was written after the scan began (the scan overlapped a write);
//   - its content changed in place since old's listing of it while the
//     queue has said nothing of it since the scan of that listing began:
//     the kernel shows a write (a truncation first) a little before it
//     queues the event, so the event is on its way. It comes before the
//     writer's call returns, so a write that returned before a listing
//     is never held by it; a write the queue never tells of (through a
//     memory map) is taken maxWriteHold after it was first held.
//
// The last rule needs the queue to have been quiet about the file since
// old's listing: a second write begun before any scan took the first
// one whole may still be listed half written (its truncation shows
// before its event, and the first write's events are no help).
//
// It runs under scanMu, keeps the held files in w.held and, when there
// are any, asks the watch's loop for a rescan once they may be taken.
func (w *Watch) unsettled(old, next Snapshot, covered, prev uint64) map[string]bool {
	files, dropped := w.watcher.Files()
	now := time.Now()
	keep := map[string]held{}
	consider := func(path string, changed bool) {
		ev := files[path]
		h, was := w.held[path]
		if !was {
			h = held{base: prev, since: now}
		}
		unread := changed && ev.Last <= h.base && dropped <= h.base && now.Sub(h.since) < maxWriteHold
		if unread || ev.Modify > covered || (!ev.Began.IsZero() && now.Sub(ev.Began) < maxWriteHold) {
			keep[path] = h
		}
	}
	for path := range files {
		consider(path, false)
	}
	changedInPlace(old.Skills, next.Skills, func(s Skill) (string, Stamp) { return s.Path, s.Stamp }, consider)
	changedInPlace(old.Prompts, next.Prompts, func(p Prompt) (string, Stamp) { return p.Path, p.Stamp }, consider)
	floor := covered // what the queue said before it matters no more
	for _, h := range keep {
		floor = min(floor, h.base)
	}
	w.watcher.Forget(floor)
	w.held = keep
	if len(keep) == 0 {
		return nil
	}
	select {
	case w.holding <- struct{}{}:
	default:
	}
	paths := make(map[string]bool, len(keep))
	for path := range keep {
		paths[path] = true
	}
	return paths
}

// changedInPlace calls f for each file both lists name whose stamp
// changed while its inode stayed.
func changedInPlace[T any](old, next []T, stamp func(T) (string, Stamp), f func(path string, changed bool)) {
	before := make(map[string]Stamp, len(old))
	for _, e := range old {
		path, st := stamp(e)
		before[path] = st
	}
	for _, e := range next {
		path, st := stamp(e)
		if was, ok := before[path]; ok && !was.Equal(st) && was.SameInode(st) {
			f(path, true)
		}
	}
}

// holding returns the scan next with each held file (a path the notifier
// says may have been read half written, notifier.Unsettled) listed as the
// snapshot before it listed that file: its skill or prompt entry, its
// skips, or nothing when it was not listed. So a listing that runs while
// a file is being written, or a scan a write overlapped, never publishes
// the half-written file, and a write announces one change
// (docs/decisions.md D81). Every other file is as next found it. A held
// file whose old id or name another file now serves is taken as next
// found it: one entry per id is the snapshot's rule.
func (next Snapshot) holding(before Snapshot, held map[string]bool) Snapshot {
	next.Skills = holdEntries(before.Skills, next.Skills, held, func(s Skill) string { return s.Path }, func(s Skill) string { return s.ID })
	next.Prompts = holdEntries(before.Prompts, next.Prompts, held, func(p Prompt) string { return p.Path }, func(p Prompt) string { return p.Name })
	next.SkillSkips = holdSkips(before.SkillSkips, next.SkillSkips, held)
	next.PromptSkips = holdSkips(before.PromptSkips, next.PromptSkips, held)
	return next
}

// holdEntries is holding for one sorted list of entries.
func holdEntries[T any](before, next []T, held map[string]bool, path, key func(T) string) []T {
	if !slices.ContainsFunc(before, func(e T) bool { return held[path(e)] }) &&
		!slices.ContainsFunc(next, func(e T) bool { return held[path(e)] }) {
		return next
	}
	out := make([]T, 0, len(next))
	keys := map[string]bool{}
	for _, e := range next {
		if !held[path(e)] {
			out = append(out, e)
			keys[key(e)] = true
		}
	}
	taken := map[string]bool{} // held paths whose old key another file serves
	for _, e := range before {
		if held[path(e)] && keys[key(e)] {
			taken[path(e)] = true
		}
	}
	for _, e := range before {
		if held[path(e)] && !taken[path(e)] {
			out = append(out, e)
		}
	}
	for _, e := range next {
		if held[path(e)] && taken[path(e)] {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// holdSkips is holding for a list of skips: a held file's skips are the
// ones before listed, after the rest.
func holdSkips(before, next []Skip, held map[string]bool) []Skip {
	if !slices.ContainsFunc(before, func(s Skip) bool { return held[s.Path] }) &&
		!slices.ContainsFunc(next, func(s Skip) bool { return held[s.Path] }) {
		return next
	}
	out := slices.DeleteFunc(slices.Clone(next), func(s Skip) bool { return held[s.Path] })
	for _, s := range before {
		if held[s.Path] {
			out = append(out, s)
		}
	}
	return out
}
