package catalog

import (
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
	s.loading, s.orphans = true, false
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
	// Decoded outside the lock, so reads (which go to the engine until the
	// load ends) are never held up; bodies beyond the budget are dropped
	// as they are decoded, so a large scope never holds them all at once.
	decoded := make([]Decoded, 0, len(values))
	unkeyed := false
	var bodies int64
	for _, v := range values {
		d, ok := s.decode(v)
		if !ok {
			unkeyed = true
			continue
		}
		if d.Err == nil {
			if size := int64(len(d.Body)); bodies+size <= s.budget {
				bodies += size
			} else {
				d.Body, d.noBody = "", true
			}
		}
		decoded = append(decoded, d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := make(map[string]*entry, len(s.dirty))
	for key := range s.dirty {
		if el, ok := s.entries[key]; ok {
			kept[key] = el
		}
	}
	s.lru.Init()
	s.used = 0
	s.entries = make(map[string]*entry, len(decoded))
	s.sorted, s.sortedOK = nil, false // sorted again on first use
	s.unkeyed = unkeyed
	for _, d := range decoded {
		if _, changed := s.dirty[d.Key]; !changed {
			s.putLocked(d.Key, d)
		}
	}
	for key := range s.dirty {
		if en, ok := kept[key]; ok {
			s.putLocked(key, Decoded{Summary: en.summary, Body: en.body, Err: en.err, noBody: !en.hasBody})
		}
		reread = append(reread, key)
	}
	for key := range s.pending {
		if _, done := s.dirty[key]; !done {
			reread = append(reread, key)
		}
	}
	s.loading, s.dirty, s.pending, s.valid = false, nil, nil, !s.orphans
	s.bumpLocked()
	return reread
}

// AbortLoad ends a load that could not complete; the scope stays invalid.
func (s *Scope) AbortLoad() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading, s.dirty, s.pending = false, nil, nil
}
