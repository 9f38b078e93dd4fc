package catalog

import (
	"maps"
	"sync"
)

// readCounts counts the successful reads of each skill since boot, by
// every surface that serves a body (iii://{id}, skill://…/SKILL.md), for
// skills::diagnostics (docs/decisions.md D42).
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

// Reads returns how many times each skill was read since the view was
// made.
func (v *View) Reads() map[string]uint64 {
	v.reads.mu.Lock()
	defer v.reads.mu.Unlock()
	return maps.Clone(v.reads.n)
}
