package catalog

// The scope's bodies in a BodyStore (docs/decisions.md D54): a body is
// written to the store before the scope's lock is taken (stash), the
// entry then holds its handle, and a handle that no entry took is freed
// (unstash). A write is never made under the lock, so a load writing
// thousands of bodies holds up no read; and since each write is a record
// of its own, a load and a write of one key that overlap never mix their
// bodies: the entry holds whichever record won, the other is freed.

// UseBodyStore makes the scope keep its bodies in st instead of on the
// heap. Call it before the scope is loaded or written (the worker does,
// as it builds the scope); the store is not closed by the scope.
func (s *Scope) UseBodyStore(st *BodyStore) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store = st
}

// BodyStoreFailure is why the scope's bodies are kept on the heap though
// it was given a BodyStore (for diagnostics); nil when they are not, or
// when it has no store.
func (s *Scope) BodyStoreFailure() error {
	if s.store == nil {
		return nil
	}
	return s.store.Failure()
}

// stash writes d's body to the store when the scope has one and the
// body may be kept; d then holds the handle instead of the body. A body
// the store refuses stays in d, on the heap.
func (s *Scope) stash(d *Decoded) {
	if s.store == nil || d.Err != nil || d.noBody || d.ref != 0 || int64(len(d.Body)) > s.budget {
		return
	}
	if h, err := s.store.put(d.Body); err == nil {
		d.ref, d.size, d.Body = h, int64(len(d.Body)), ""
	}
}

// unstash frees the record of a stashed body that no entry took.
func (s *Scope) unstash(d Decoded) {
	if d.ref != 0 {
		s.store.free(d.ref)
	}
}

// bodySize is the length of d's body, wherever it is.
func (d Decoded) bodySize() int64 {
	if d.ref != 0 {
		return d.size
	}
	return int64(len(d.Body))
}

// missed turns a hit Get counted into a miss: the body was in the store
// but could not be read back (freed meanwhile, or unreadable).
func (s *Scope) missed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits--
	s.misses++
}

// HeapBodies counts the bodies the scope keeps on the heap, and their
// bytes: those its BodyStore refused (or all, without one). With Stats'
// used bytes, it tells diagnostics where the bodies are (docs/decisions.md
// D79).
func (s *Scope) HeapBodies() (n int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onHeap, s.heapUsed
}
