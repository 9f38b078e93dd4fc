// Package catalog keeps the worker's in-memory view of the state scopes it
// serves (docs/decisions.md D17, D18): every value of a scope, by key, in
// the engine's order, loaded with one state::list on each connection and
// kept current by the worker's own writes and by the engine's `state`
// trigger. While a scope is not loaded (before the first load on a
// connection, or when the engine has no `state` trigger type) it says so,
// and readers go to the engine instead: the catalog is never stale by more
// than one event.
package catalog

import (
	"container/list"
	"encoding/json"
	"sync"
)

// Scope mirrors one state scope: its values by key, in the engine's
// state::list order (first write; an overwrite keeps its place; a delete
// removes it). It is safe for concurrent use.
type Scope struct {
	name  string
	keyOf func(json.RawMessage) (string, bool)

	mu      sync.RWMutex
	order   *list.List               // of *entry, in engine order
	entries map[string]*list.Element // by key
	valid   bool                     // loaded on the current connection
	loading bool                     // a load is in flight: changes are recorded in dirty
	dirty   map[string]struct{}      // keys changed while loading, to read again after
	unkeyed bool                     // a loaded value had no key: a miss is not proof of absence
	version uint64                   // changes on every change of content or validity
	changed chan struct{}            // closed and replaced when version changes
}

type entry struct {
	key   string
	value json.RawMessage
}

// NewScope returns an empty, not yet valid mirror of the named scope.
// keyOf extracts the key of a value read by state::list, which returns
// values without their keys: the registry's rows carry their key as their
// id (skills) or name (prompts).
func NewScope(name string, keyOf func(json.RawMessage) (string, bool)) *Scope {
	return &Scope{name: name, keyOf: keyOf, order: list.New(), entries: map[string]*list.Element{}, changed: make(chan struct{})}
}

// Name is the state scope mirrored.
func (s *Scope) Name() string { return s.name }

// Get returns the value at key. authoritative reports whether the answer
// can be trusted without asking the engine: the scope is loaded, and
// either the key is present or every loaded value had a key.
func (s *Scope) Get(key string) (value json.RawMessage, found, authoritative bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.valid {
		return nil, false, false
	}
	if el, ok := s.entries[key]; ok {
		return el.Value.(*entry).value, true, true
	}
	return nil, false, !s.unkeyed
}

// Values returns the scope's values in engine order, as state::list would,
// and whether the scope is loaded (when it is not, values is nil).
func (s *Scope) Values() (values []json.RawMessage, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.valid {
		return nil, false
	}
	values = make([]json.RawMessage, 0, s.order.Len())
	for el := s.order.Front(); el != nil; el = el.Next() {
		values = append(values, el.Value.(*entry).value)
	}
	return values, true
}

// Version changes whenever the content or the validity of the scope
// changes, so renders derived from it can be reused until then.
func (s *Scope) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// Changed returns a channel closed at the next change of Version, so a
// waiter can follow the scope without polling.
func (s *Scope) Changed() <-chan struct{} {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.changed
}

// bumpLocked advances the version and wakes the waiters.
func (s *Scope) bumpLocked() {
	s.version++
	close(s.changed)
	s.changed = make(chan struct{})
}

// Valid reports whether the scope is loaded on the current connection.
func (s *Scope) Valid() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.valid
}

// Put stores value at key: a new key goes last, an existing one keeps its
// place, as in the engine.
func (s *Scope) Put(key string, value json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(key, value)
	s.markLocked(key)
}

// Delete removes key.
func (s *Scope) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteLocked(key)
	s.markLocked(key)
}

func (s *Scope) putLocked(key string, value json.RawMessage) {
	if el, ok := s.entries[key]; ok {
		el.Value.(*entry).value = value
	} else {
		s.entries[key] = s.order.PushBack(&entry{key: key, value: value})
	}
	s.bumpLocked()
}

func (s *Scope) deleteLocked(key string) {
	if el, ok := s.entries[key]; ok {
		s.order.Remove(el)
		delete(s.entries, key)
		s.bumpLocked()
	}
}

// markLocked records a change made while a load is in flight: the load's
// snapshot may predate it, so the key is read again after the load.
func (s *Scope) markLocked(key string) {
	if s.loading {
		s.dirty[key] = struct{}{}
	}
}

// Invalidate marks the scope as not loaded: readers go to the engine until
// the next load.
func (s *Scope) Invalidate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.valid {
		s.valid = false
		s.bumpLocked()
	}
}

// BeginLoad starts a load: from now on every change is remembered, so that
// EndLoad can report the keys a snapshot taken after this call may have
// missed.
func (s *Scope) BeginLoad() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading = true
	s.dirty = map[string]struct{}{}
}

// EndLoad replaces the content with a state::list snapshot taken after
// BeginLoad, marks the scope valid and returns the keys that changed
// meanwhile: their snapshot values may be older than the changes, so the
// caller reads each again (and Puts or Deletes it). Changes made during
// the load are kept over the snapshot.
func (s *Scope) EndLoad(values []json.RawMessage) (reread []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := make(map[string]json.RawMessage, len(s.dirty))
	for key := range s.dirty {
		if el, ok := s.entries[key]; ok {
			kept[key] = el.Value.(*entry).value
		}
	}
	s.order.Init()
	s.entries = make(map[string]*list.Element, len(values))
	s.unkeyed = false
	for _, v := range values {
		key, ok := s.keyOf(v)
		if !ok {
			s.unkeyed = true
			continue
		}
		s.putLocked(key, v)
	}
	for key := range s.dirty {
		if v, ok := kept[key]; ok {
			s.putLocked(key, v)
		} else {
			s.deleteLocked(key)
		}
		reread = append(reread, key)
	}
	s.loading, s.dirty, s.valid = false, nil, true
	s.bumpLocked()
	return reread
}

// AbortLoad ends a load that could not complete; the scope stays invalid.
func (s *Scope) AbortLoad() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading, s.dirty = false, nil
}

// Len is the number of keys held.
func (s *Scope) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.order.Len()
}

// KeyField returns a keyOf for NewScope that reads the key from one string
// field of each value, e.g. KeyField("id") for skill rows.
func KeyField(field string) func(json.RawMessage) (string, bool) {
	return func(v json.RawMessage) (string, bool) {
		var row map[string]json.RawMessage
		if json.Unmarshal(v, &row) != nil {
			return "", false
		}
		var key string
		if json.Unmarshal(row[field], &key) != nil || key == "" {
			return "", false
		}
		return key, true
	}
}
