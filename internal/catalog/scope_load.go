package catalog

import (
	"context"
	"encoding/json"
)

// Defer records a changed key while a load is in flight, so that the load
// reads it again when it ends (its snapshot may predate the change); it
// reports whether it did. Otherwise the caller reads the key now (a loaded
// scope) or not at all (an invalid one: the next load reads everything).
func (s *Scope) Defer(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loading {
		return false
	}
	s.pending[key] = struct{}{}
	return true
}

// BeginLoad starts a load: from now on every change is remembered, so that
// EndLoad can report the keys a snapshot taken after this call may have
// missed.
func (s *Scope) BeginLoad() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading, s.orphans, s.stale = true, false, false
	s.dirty = map[string]struct{}{}
	s.pending = map[string]struct{}{}
}

// EndLoad replaces the content with a state::list snapshot taken after
// BeginLoad, marks the scope valid and returns the keys that changed
// meanwhile: their snapshot values may be older than the changes, so the
// caller reads each again (and Puts or Deletes it). Changes made during
// the load are kept over the snapshot. Values are decoded one by one, so
// only summaries and the bodies the budget allows stay in memory.
func (s *Scope) EndLoad(values []json.RawMessage) (reread []string) {
	l := s.newLoad()
	for _, v := range values {
		l.add(v)
	}
	return s.finishLoad(context.Background(), l) // no catalog's load: nothing to carry
}

// scopeLoad is a snapshot being decoded, one value at a time as a
// streamed state::list hands them over (docs/decisions.md D54), outside
// the scope's lock, so reads (which go to the engine until the load ends)
// are never held up. Bodies beyond the budget are dropped as they are
// decoded, and those within it go to the scope's BodyStore at once, so a
// large scope never holds them all on the heap.
type scopeLoad struct {
	s       *Scope
	decoded []Decoded
	unkeyed bool
	bodies  int64
}

func (s *Scope) newLoad() *scopeLoad { return &scopeLoad{s: s} }

// add decodes one value of the snapshot.
func (l *scopeLoad) add(v json.RawMessage) {
	d, ok := l.s.decode(v)
	if !ok {
		l.unkeyed = true
		return
	}
	d.sum = sumOf(v)
	if d.Err == nil {
		if size := int64(len(d.Body)); l.bodies+size <= l.s.budget {
			l.bodies += size
			l.s.stash(&d)
		} else {
			d.Body, d.noBody = "", true
		}
	}
	l.decoded = append(l.decoded, d)
}

// abort frees what a load that cannot complete stashed.
func (l *scopeLoad) abort() {
	for _, d := range l.decoded {
		l.s.unstash(d)
	}
	l.decoded = nil
}

// reset drops what l decoded, for the snapshot to be listed again from
// the start.
func (l *scopeLoad) reset() {
	l.abort()
	l.unkeyed, l.bodies = false, 0
}

// finishLoad is EndLoad for a snapshot decoded by l. A load during which
// the scope was invalidated (a value it cannot mirror was written) leaves
// it invalid and asks for another, outside the lock.
func (s *Scope) finishLoad(ctx context.Context, l *scopeLoad) (reread []string) {
	reread, changes, stale := s.replaceContent(l)
	if stale && s.onInvalid != nil {
		s.onInvalid()
	}
	if len(changes) > 0 && s.onLoadChanges != nil {
		s.onLoadChanges(ctx, changes)
	}
	return reread
}

// replaceContent puts l's snapshot in place under the lock; stale reports
// an invalidation during the load, which the scope does not vouch over.
// After the first load, changes are the keys whose value the snapshot
// changed (loadChanges).
func (s *Scope) replaceContent(l *scopeLoad) (reread []string, changes []KeyChange, stale bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadedOnce {
		changes = s.loadChanges(s.entries, l.decoded, s.dirty)
	}
	s.loadedOnce = true
	kept := make(map[string]*entry, len(s.dirty))
	for key := range s.dirty {
		if el, ok := s.entries[key]; ok {
			kept[key] = el
		}
	}
	for key, en := range s.entries {
		if kept[key] != en && en.ref != 0 {
			s.store.free(en.ref) // the snapshot replaces it
		}
	}
	s.lru.Init()
	s.used, s.onHeap, s.heapUsed = 0, 0, 0
	s.entries = make(map[string]*entry, len(l.decoded))
	s.sorted, s.sortedOK = nil, false // sorted again on first use
	s.unkeyed = l.unkeyed
	for _, d := range l.decoded {
		if _, changed := s.dirty[d.Key]; !changed {
			s.putLocked(d.Key, d)
		} else {
			s.unstash(d) // the change made meanwhile wins
		}
	}
	for key := range s.dirty {
		if en, ok := kept[key]; ok {
			s.putLocked(key, Decoded{Summary: en.summary, Body: en.body, Err: en.err, noBody: !en.hasBody, ref: en.ref, size: en.size, sum: en.sum})
		}
		reread = append(reread, key)
	}
	for key := range s.pending {
		if _, done := s.dirty[key]; !done {
			reread = append(reread, key)
		}
	}
	stale = s.stale && !s.orphans // an orphaned load is followed by the new connection's
	s.loading, s.dirty, s.pending, s.valid, s.stale = false, nil, nil, !s.orphans && !s.stale, false
	s.bumpLocked()
	return reread, changes, stale
}

// AbortLoad ends a load that could not complete; the scope stays invalid.
func (s *Scope) AbortLoad() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading, s.dirty, s.pending, s.stale = false, nil, nil, false
}
