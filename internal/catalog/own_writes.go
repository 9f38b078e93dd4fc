package catalog

import (
	"crypto/sha256"
	"slices"
)

// The worker's own writes (docs/decisions.md D51). A write applies to the
// scope when state::set answers, with the row the worker wrote (D18), and
// the engine then sends the state event of that same write back to the
// worker. That event must cost nothing: a Scope follows each of its own
// writes from the moment the call goes out until its event arrives, and
// recognises the event by the hash of the stored value, which the answer
// echoes (new_value) and the event carries. Anything else about the key
// that the scope cannot account for makes it read the key again: an
// event that is not the echo of an own write (another client's write, or
// an own write whose answer was lost), and own writes of one key in
// flight at once (their answers may be applied in another order than the
// engine applied the writes).

// valueSum identifies a stored value by its bytes as the engine sent them.
type valueSum [sha256.Size]byte

func sumOf(raw []byte) valueSum { return sha256.Sum256(raw) }

// ownWrite is what a Scope knows of its own writes to one key that are
// not yet settled.
type ownWrite struct {
	inflight   int        // state::set calls sent and not yet answered
	echoed     []valueSum // answered writes whose state event has not arrived
	early      []valueSum // events that arrived while a write was in flight, not yet matched to an answer
	overlapped bool       // two writes were in flight at once since the key was last settled
}

// beginOwnWrite records that a write of key is about to be sent, so that
// an event for key arriving before the answer waits for it.
func (s *Scope) beginOwnWrite(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.own[key]
	if w == nil {
		w = &ownWrite{}
		s.own[key] = w
	}
	w.overlapped = w.overlapped || w.inflight > 0
	w.inflight++
}

// endOwnWrite records the answer of an own write of key. With d it
// succeeded: d is the value the engine now holds, applied here, and sum
// the hash of the value as the engine echoed it. Without d the write
// failed, or its answer was lost: if the engine applied it after all, its
// event is not the echo of any answer, and it is read again then.
func (s *Scope) endOwnWrite(key string, d *Decoded, sum valueSum) {
	if d != nil {
		// The hash the reconcile compares is the stored value's, as the
		// engine echoed it (reconcile.go, docs/decisions.md D73).
		d.sum = sum
		// The body goes to the BodyStore as a loaded or re-read one does
		// (D54): kept on the heap, every registered body would stay there
		// for as long as the worker runs (issue 28: RSS 3.4× the bodies
		// after 10,000 registers).
		s.stash(d)
	}
	if s.endOwn(key, d, sum, false) && s.onWrite != nil {
		s.onWrite(key)
	}
	if d != nil && s.onOwnChange != nil {
		s.onOwnChange(key, &sum)
	}
}

// deletedSum is the hash of a delete's new value in its state event:
// null.
var deletedSum = sumOf([]byte("null"))

// endOwnDelete records the answer of an own delete of key that
// succeeded: the entry goes, and the delete's state event is its echo, as
// a write's is, so an event that arrives before the answer is not taken
// for another writer's change and announced twice (docs/decisions.md
// D72, D73). The key is read again shortly after all the same, in case
// another worker's write raced the delete (D18).
func (s *Scope) endOwnDelete(key string) {
	s.endOwn(key, nil, deletedSum, true)
	if s.onWrite != nil {
		s.onWrite(key)
	}
	if s.onOwnChange != nil {
		s.onOwnChange(key, nil)
	}
}

// endOwn is the answer of an own write (d, nil when it failed) or of an
// own delete that succeeded (deleted) of key, and sum the hash its state
// event will carry. It reports whether the key must be read again.
func (s *Scope) endOwn(key string, d *Decoded, sum valueSum, deleted bool) (reread bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.own[key]
	w.inflight--
	if d != nil || deleted {
		if i := slices.Index(w.early, sum); i >= 0 {
			w.early = slices.Delete(w.early, i, i+1) // its event came first
		} else {
			w.echoed = append(w.echoed, sum)
		}
		if deleted {
			s.deleteLocked(key)
		} else {
			s.putLocked(key, *d)
		}
		s.markLocked(key)
	}
	if w.inflight == 0 && len(w.early) > 0 {
		// Events no answer accounted for: another client's writes.
		w.early = nil
		reread = true
	}
	return s.settleLocked(key, w) || reread
}

// ownEvent reports whether the state event of key, whose new value has
// hash sum, is accounted for by the scope's own writes: the echo of one
// (nothing to do), or an event that must wait for a write in flight.
// When it returns false the caller reads the key again.
func (s *Scope) ownEvent(key string, sum valueSum) bool {
	s.mu.Lock()
	w := s.own[key]
	switch {
	case w == nil:
		s.mu.Unlock()
		return false
	case slices.Contains(w.echoed, sum):
		i := slices.Index(w.echoed, sum)
		w.echoed = slices.Delete(w.echoed, i, i+1)
		reread := s.settleLocked(key, w)
		s.mu.Unlock()
		if reread && s.onWrite != nil {
			s.onWrite(key)
		}
		return true
	case w.inflight > 0:
		w.early = append(w.early, sum)
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	return false
}

// settleLocked forgets key's own writes once every one is answered and
// every event echoed, and reports whether the key must be read again:
// after two own writes in flight at once, the answer applied last need
// not be the engine's last write. Writes one after the other are applied
// in the engine's order, however late their events.
func (s *Scope) settleLocked(key string, w *ownWrite) (reread bool) {
	if w.inflight > 0 || len(w.echoed) > 0 {
		return false
	}
	delete(s.own, key)
	return w.overlapped
}

// forgetOwnEventsLocked drops what the scope expected of events when the
// connection ends: events may have been lost with it, and the next load
// reads every key anyway. Writes still in flight stay counted.
func (s *Scope) forgetOwnEventsLocked() {
	for key, w := range s.own {
		w.echoed, w.early = nil, nil
		if w.inflight == 0 {
			delete(s.own, key)
		}
	}
}
