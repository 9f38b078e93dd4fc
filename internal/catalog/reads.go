package catalog

import (
	"cmp"
	"maps"
	"slices"
	"sync"
)

// readCounts counts the successful reads of each skill since boot, by
// every surface that serves a body (iii://{id}, skill://…/SKILL.md), for
// skills::diagnostics (docs/decisions.md D42). An id's count goes with
// the id (D64): the worker's own unregister forgets it at once, and each
// listing of new content forgets the ids it no longer serves (another
// worker's unregister, a file removed), so churn leaves the map the size
// of what is served, not of everything ever served.
type readCounts struct {
	mu sync.Mutex
	n  map[string]uint64
}

// NoteRead counts one successful read of the skill id.
func (v *View) NoteRead(id string) {
	v.reads.mu.Lock()
	v.reads.n[id]++
	v.reads.mu.Unlock()
}

// forgetRead drops the count of id, which is no longer stored.
func (v *View) forgetRead(id string) {
	v.reads.mu.Lock()
	delete(v.reads.n, id)
	v.reads.mu.Unlock()
}

// keepReadsOf drops the counts of the ids l does not serve. A read that
// lands while l is built, of an id registered after l's rows were taken,
// may lose its count: counts are for diagnosis, and the next reads count
// again.
func (v *View) keepReadsOf(l Listing) {
	v.reads.mu.Lock()
	defer v.reads.mu.Unlock()
	for id := range v.reads.n {
		if _, ok := l.Skill(id); !ok {
			delete(v.reads.n, id)
		}
	}
}

// Reads returns how many times each skill was read since the view was
// made, for the ids it still serves.
func (v *View) Reads() map[string]uint64 {
	v.reads.mu.Lock()
	defer v.reads.mu.Unlock()
	return maps.Clone(v.reads.n)
}

// TopReads returns the counts of the n most read skills (ties by id) and
// how many other skills have a count: what skills::diagnostics reports,
// so that its answer stays within a frame however many skills are read.
func (v *View) TopReads(n int) (top map[string]uint64, omitted int) {
	v.reads.mu.Lock()
	if len(v.reads.n) <= n {
		defer v.reads.mu.Unlock()
		return maps.Clone(v.reads.n), 0
	}
	type count struct {
		id string
		n  uint64
	}
	all := make([]count, 0, len(v.reads.n))
	for id, c := range v.reads.n {
		all = append(all, count{id, c})
	}
	v.reads.mu.Unlock()
	slices.SortFunc(all, func(a, b count) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.id, b.id))
	})
	top = make(map[string]uint64, n)
	for _, c := range all[:n] {
		top[c.id] = c.n
	}
	return top, len(all) - n
}

// ReadsLen is how many skills have a read count.
func (v *View) ReadsLen() int {
	v.reads.mu.Lock()
	defer v.reads.mu.Unlock()
	return len(v.reads.n)
}
