// Package offered keeps the functions the engine offers now, as this
// worker last listed them (docs/decisions.md D85). The worker lists them
// each time the engine says its workers or functions changed; the content
// view reads a Snapshot to judge which skills' requirements are met. Until
// the first list, or on an engine that cannot list its functions, nothing
// is known and every function counts as offered, so no skill is marked
// for want of a list.
package offered

import (
	"maps"
	"sync"
)

// Functions is the engine's function list. It is safe for concurrent use.
type Functions struct {
	mu      sync.Mutex
	now     Snapshot
	changed chan struct{}
}

// New returns a list that knows nothing yet.
func New() *Functions { return &Functions{changed: make(chan struct{})} }

// Snapshot is the list at one version. Its set is never written after it
// is made, so a Snapshot is read without a lock.
type Snapshot struct {
	// Version changes whenever the set does (or becomes known or unknown).
	Version uint64
	// Known is false before the first list and when the engine cannot list.
	Known bool
	ids   map[string]struct{}
}

// Has reports whether function id is offered; true for every id while
// nothing is known.
func (s Snapshot) Has(id string) bool {
	if !s.Known {
		return true
	}
	_, ok := s.ids[id]
	return ok
}

// Len is how many functions are known to be offered.
func (s Snapshot) Len() int { return len(s.ids) }

// Snapshot is the list now; the zero Snapshot for a nil Functions.
func (f *Functions) Snapshot() Snapshot {
	if f == nil {
		return Snapshot{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Changed is closed at the next change of the list; nil (never ready) for
// a nil Functions.
func (f *Functions) Changed() <-chan struct{} {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

// Set makes ids the list, and reports whether that changed it.
func (f *Functions) Set(ids map[string]bool) bool {
	set := make(map[string]struct{}, len(ids))
	for id, ok := range ids {
		if ok {
			set[id] = struct{}{}
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.now.Known && maps.Equal(f.now.ids, set) {
		return false
	}
	f.publishLocked(Snapshot{Known: true, ids: set})
	return true
}

// Unknown forgets the list: the engine cannot list its functions.
func (f *Functions) Unknown() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.now.Known {
		return false
	}
	f.publishLocked(Snapshot{})
	return true
}

func (f *Functions) publishLocked(next Snapshot) {
	next.Version = f.now.Version + 1
	f.now = next
	close(f.changed)
	f.changed = make(chan struct{})
}
