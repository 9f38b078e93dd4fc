package catalog

import (
	"container/list"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
)

// Decoded is what a Decoder makes of one stored value.
type Decoded struct {
	Key     string // the value's key, for values listed without one
	Summary any    // kept for every entry: what listings need
	Body    string // kept while the body budget allows: what a read needs
	Err     error  // the value does not decode: reads report it, listings skip it

	noBody bool     // the body was dropped for the budget: do not cache ""
	ref    uint64   // the body is in the scope's BodyStore under this handle (stash), Body is ""
	size   int64    // the body's length, wherever it is
	sum    valueSum // the hash of the stored value's bytes, zero when unknown (reconcile.go)
}

// Decoder turns a stored value into an entry. ok is false when not even a
// key can be read from it.
type Decoder func(raw json.RawMessage) (d Decoded, ok bool)

// Entry is what the catalog holds for a key.
type Entry struct {
	Summary any
	Body    string
	HasBody bool // false when the body was evicted (or never fitted): read it from the engine
	Err     error
	Gen     uint64 // the entry's generation, for CacheBody
}

// Scope mirrors one state scope: an entry per key, listed in key order
// (Summaries), with bodies in a least-recently-read cache bounded by a
// byte budget. It is safe for concurrent use.
type Scope struct {
	name   string
	decode Decoder
	budget int64 // bytes of bodies kept; 0 keeps none

	mu      sync.Mutex
	entries map[string]*entry // by key
	// sorted holds the keys of entries in order while sortedOK: kept as
	// entries come and go, rebuilt (once) after a load, so a listing
	// after one registration costs no sort (Summaries).
	sorted   []string
	sortedOK bool
	lru      *list.List // of *entry with a body, most recently read first
	used     int64      // bytes of bodies kept
	hits     uint64
	misses   uint64
	valid    bool                // loaded on the current connection
	orphans  bool                // the connection ended during the load in flight: it vouches for nothing
	stale    bool                // invalidated during the load in flight: it vouches for nothing, another follows
	loading  bool                // a load is in flight: changes are recorded in dirty
	dirty    map[string]struct{} // keys changed here while loading: kept over the snapshot, read again after
	pending  map[string]struct{} // keys reported changed (events) while loading: read again after
	unkeyed  bool                // a loaded value had no key: a miss is not proof of absence
	version  uint64              // changes on every change of content or validity
	changed  chan struct{}       // closed and replaced when version changes
	gens     uint64              // source of entry generations
	store    *BodyStore          // where bodies are kept; nil: on the heap (UseBodyStore)
	onHeap   int                 // bodies kept on the heap (not in store)
	heapUsed int64               // their bytes

	// own holds the own writes not yet settled, by key (own_writes.go).
	own map[string]*ownWrite

	// keyField names the member of a value that holds its key, for the
	// reconcile to read it without decoding (keyOf); "" decodes.
	keyField string
	// sameSummary reports whether two summaries describe the same row,
	// for the scopes whose summary holds all a change is about
	// (reconcile.go); nil: only a value's bytes tell.
	sameSummary func(a, b any) bool
	passes      uint64 // reconcile passes begun (reconcile.go)

	// loadedOnce is set by the first load that replaced the content:
	// the loads after it announce what they changed (reconcile.go).
	loadedOnce bool

	// Set by the Catalog that feeds the scope: a scope invalidated
	// outside a load asks for a reload; a key the scope cannot vouch for
	// after an own write or delete asks to be read again.
	onInvalid func()
	onWrite   func(key string)
	// onOwnChange hears each own write (sum: the stored value's hash)
	// and delete (sum nil) that succeeded, to signal it (signal.go).
	onOwnChange func(key string, sum *valueSum)
	// readNow reads key again at once, on the path a state event's key
	// takes, for a read after a version (read_after.go); settled as
	// Catalog.reread reports it.
	readNow func(ctx context.Context, key string) (settled bool, err error)
	// onLoadChanges hears what a load after the first changed
	// (reconcile.go).
	onLoadChanges func(ctx context.Context, changes []KeyChange)
}

type entry struct {
	key     string
	gen     uint64 // changes with every new value of the entry
	summary any
	err     error
	body    string   // on the heap, when ref is 0
	ref     uint64   // the body's handle in the scope's BodyStore; 0: none
	size    int64    // the body's length, wherever it is
	sum     valueSum // the hash of the value's bytes as the engine sent them (reconcile.go)
	seen    uint64   // the last reconcile pass that listed the key (reconcile.go)
	hasBody bool
	lruElem *list.Element // in Scope.lru while hasBody
}

// NewScope returns an empty, not yet valid mirror of the named scope that
// keeps up to budget bytes of bodies (0: none; every read of a body then
// goes to the engine).
func NewScope(name string, decode Decoder, budget int64) *Scope {
	return &Scope{name: name, decode: decode, budget: max(budget, 0), lru: list.New(),
		entries: map[string]*entry{}, own: map[string]*ownWrite{}, changed: make(chan struct{})}
}

// Name is the state scope mirrored.
func (s *Scope) Name() string { return s.name }

// Get returns the entry at key. authoritative reports whether the answer
// can be trusted without asking the engine: the scope is loaded, and
// either the key is present or every loaded value had a key. A body found
// counts as a cache hit; a present entry without its body as a miss. A
// body in the BodyStore is read after the lock is released; one freed
// meanwhile, or unreadable, is a miss (the caller asks the engine).
func (s *Scope) Get(key string) (e Entry, found, authoritative bool) {
	e, ref, found, authoritative := s.get(key)
	if ref != 0 {
		e.Body, e.HasBody = s.store.read(ref)
		if !e.HasBody {
			s.missed()
		}
	}
	return e, found, authoritative
}

// get is Get under the lock, with the handle of a body in the BodyStore
// for the caller to read.
func (s *Scope) get(key string) (e Entry, ref uint64, found, authoritative bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.valid {
		return Entry{}, 0, false, false
	}
	el, ok := s.entries[key]
	if !ok {
		return Entry{}, 0, false, !s.unkeyed
	}
	en := el
	if en.err == nil {
		if en.hasBody {
			s.hits++
			s.lru.MoveToFront(en.lruElem)
		} else {
			s.misses++
		}
	}
	return Entry{Summary: en.summary, Body: en.body, HasBody: en.hasBody, Err: en.err, Gen: en.gen}, en.ref, true, true
}

// CacheBody keeps body for key after a read had to fetch it from the
// engine, if the entry is still the generation the read started from (a
// newer value may have arrived meanwhile) and the budget allows.
func (s *Scope) CacheBody(key, body string, gen uint64) {
	d := Decoded{Body: body, size: int64(len(body))}
	s.stash(&d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[key]; ok && el.gen == gen {
		s.keepBodyLocked(el, d)
	} else {
		s.unstash(d)
	}
}

// Summaries returns the summaries of the entries that decoded, sorted by
// key (a skill's id, a prompt's name), and whether the scope is loaded
// (when it is not, nil).
func (s *Scope) Summaries() (summaries []any, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.valid {
		return nil, false
	}
	if !s.sortedOK {
		s.sorted = slices.Sorted(maps.Keys(s.entries))
		s.sortedOK = true
	}
	summaries = make([]any, 0, len(s.sorted))
	for _, key := range s.sorted {
		if en := s.entries[key]; en.err == nil {
			summaries = append(summaries, en.summary)
		}
	}
	return summaries, true
}

// Stats reports the body cache: bytes kept, the budget, and reads served
// from it or not since the scope was made.
func (s *Scope) Stats() (used, budget int64, hits, misses uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used, s.budget, s.hits, s.misses
}

// Version changes whenever the content or the validity of the scope
// changes, so renders derived from it can be reused until then.
func (s *Scope) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Changed returns a channel closed at the next change of Version, so a
// waiter can follow the scope without polling.
func (s *Scope) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Valid reports whether the scope is loaded on the current connection.
func (s *Scope) Valid() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.valid
}

// Len is the number of keys held.
func (s *Scope) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Put stores the value at key, as the engine now holds it: a new key goes
// last, an existing one keeps its place. A value whose own key (its id)
// differs from the state key cannot be mirrored faithfully (a load keys
// values by their id): the scope is invalidated, so reads go to the engine
// until a reload.
func (s *Scope) Put(key string, raw json.RawMessage) {
	d, ok := s.decode(raw)
	if ok && d.Key != key {
		s.Invalidate()
		return
	}
	d.sum = sumOf(raw)
	s.stash(&d)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(key, d)
	s.markLocked(key)
}

// Gen is the generation of key's entry, 0 when there is none: a reader
// that fetches the key from the engine applies its answer with
// ApplyIfUnchanged, so it never overwrites a value that arrived meanwhile.
func (s *Scope) Gen(key string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[key]; ok {
		return el.gen
	}
	return 0
}

// ApplyIfUnchanged stores raw at key (nil deletes it) if the entry is
// still at generation gen (0: still absent), checked and applied under one
// lock. A change made meanwhile wins: it has its own re-read queued. A
// value that does not decode is not applied: the entry stays as it was
// (the last value that did) and the decoding error is returned, for the
// caller to report.
func (s *Scope) ApplyIfUnchanged(key string, raw json.RawMessage, gen uint64) error {
	_, err := s.applyIfUnchanged(key, raw, gen)
	return err
}

// applyIfUnchanged is ApplyIfUnchanged reporting what it did: changed is
// true when the entry's value is now another (by its bytes' hash) or its
// presence changed, so a change read twice (found by a reconcile, then
// by its event) counts once (reconcile.go).
func (s *Scope) applyIfUnchanged(key string, raw json.RawMessage, gen uint64) (changed bool, err error) {
	changed, _, err = s.applyRead(key, raw, gen)
	return changed, err
}

// applyRead is applyIfUnchanged also reporting whether it applied raw:
// false when the entry changed meanwhile, the value does not decode, or
// it cannot be mirrored (the scope is then invalid).
func (s *Scope) applyRead(key string, raw json.RawMessage, gen uint64) (changed, applied bool, err error) {
	var d Decoded
	if raw != nil {
		var ok bool
		if d, ok = s.decode(raw); ok && d.Key != key {
			s.Invalidate() // as Put does: such a row cannot be mirrored
			return false, false, nil
		}
		if d.Err != nil {
			return false, false, d.Err
		}
		d.sum = sumOf(raw)
		s.stash(&d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	current := uint64(0)
	el, present := s.entries[key]
	if present {
		current = el.gen
	}
	if current != gen {
		s.unstash(d)
		return false, false, nil
	}
	if raw == nil {
		s.deleteLocked(key)
		changed = present
	} else {
		changed = !present || el.sum != d.sum && !s.sameContent(el, d)
		s.putLocked(key, d)
	}
	s.markLocked(key)
	return changed, true, nil
}

// Delete removes key.
func (s *Scope) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteLocked(key)
	s.markLocked(key)
}

func (s *Scope) putLocked(key string, d Decoded) {
	var en *entry
	if el, ok := s.entries[key]; ok {
		en = el
		s.dropBodyLocked(en)
	} else {
		en = &entry{key: key}
		s.entries[key] = en
		if s.sortedOK {
			i, _ := slices.BinarySearch(s.sorted, key)
			s.sorted = slices.Insert(s.sorted, i, key)
		}
	}
	s.gens++
	en.gen, en.summary, en.err, en.sum = s.gens, d.Summary, d.Err, d.sum
	if d.Err == nil && !d.noBody {
		s.keepBodyLocked(en, d)
	} else {
		s.unstash(d)
	}
	s.bumpLocked()
}

func (s *Scope) deleteLocked(key string) {
	if el, ok := s.entries[key]; ok {
		s.dropBodyLocked(el)
		delete(s.entries, key)
		if i, found := slices.BinarySearch(s.sorted, key); s.sortedOK && found {
			s.sorted = slices.Delete(s.sorted, i, i+1)
		}
		s.bumpLocked()
	}
}

// keepBodyLocked caches d's body for en (on the heap, or in the
// BodyStore when stash put it there), evicting the least recently read
// bodies to stay within the budget; a body bigger than the budget is not
// kept.
func (s *Scope) keepBodyLocked(en *entry, d Decoded) {
	s.dropBodyLocked(en)
	size := d.bodySize()
	if size > s.budget {
		s.unstash(d)
		return
	}
	for s.used+size > s.budget {
		oldest := s.lru.Back().Value.(*entry)
		s.dropBodyLocked(oldest)
	}
	en.body, en.ref, en.size, en.hasBody = d.Body, d.ref, size, true
	en.lruElem = s.lru.PushFront(en)
	s.used += size
	if d.ref == 0 {
		s.onHeap++
		s.heapUsed += size
	}
}

func (s *Scope) dropBodyLocked(en *entry) {
	if !en.hasBody {
		return
	}
	s.used -= en.size
	s.lru.Remove(en.lruElem)
	if en.ref != 0 {
		s.store.free(en.ref)
	} else {
		s.onHeap--
		s.heapUsed -= en.size
	}
	en.body, en.ref, en.size, en.hasBody, en.lruElem = "", 0, 0, false, nil
}

// bumpLocked advances the version and wakes the waiters.
func (s *Scope) bumpLocked() {
	s.version++
	close(s.changed)
	s.changed = make(chan struct{})
}

// markLocked records a change made while a load is in flight: the load's
// snapshot may predate it, so the key is read again after the load.
func (s *Scope) markLocked(key string) {
	if s.loading {
		s.dirty[key] = struct{}{}
	}
}

// Invalidate marks the scope as not loaded: readers go to the engine until
// the next load, which the feeding Catalog starts at once.
func (s *Scope) Invalidate() {
	if s.invalidate() && s.onInvalid != nil {
		s.onInvalid()
	}
}

// Orphan marks the scope as not loaded because the connection it was
// loaded on, or is being loaded on, ended: until the next load, reads go
// to the engine, and a load in flight ends without vouching for its
// snapshot (events after it may have been lost). Unlike Invalidate it
// asks for no reload: the new connection brings one.
func (s *Scope) Orphan() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loading {
		s.orphans = true
	}
	s.forgetOwnEventsLocked()
	if s.valid {
		s.valid = false
		s.bumpLocked()
	}
}

// invalidate marks the scope as not loaded and reports whether it was.
func (s *Scope) invalidate() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loading {
		s.stale = true // the load ends invalid and asks for another
	}
	if !s.valid {
		return false
	}
	s.valid = false
	s.bumpLocked()
	return true
}

// KeyField reads the key of a raw value from one string field, e.g.
// KeyField(raw, "id") for skill rows; for Decoders of values that do not
// otherwise decode.
func KeyField(raw json.RawMessage, field string) (string, bool) {
	var row map[string]json.RawMessage
	if json.Unmarshal(raw, &row) != nil {
		return "", false
	}
	var key string
	if json.Unmarshal(row[field], &key) != nil || key == "" {
		return "", false
	}
	return key, true
}
