package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The reconcile (docs/decisions.md D73). The state trigger fires only on
// the engine that did the write, so a replica on another engine sharing
// the store (iii's Redis adapter) hears nothing of it. On a bounded
// interval, the catalog lists each loaded scope again and compares each
// row's fingerprint, the SHA-256 of its value's bytes as the engine sent
// them, with the one its entry keeps: nothing is decoded, no body is
// copied. A key whose fingerprint differs, that the listing lacks, or that
// the mirror lacks is queued exactly as a state event queues it, and read
// again with state::get: the listing is never applied, so a reconcile
// racing a write never puts the older value over the newer one (the read
// is newer than the listing, and applyIfUnchanged keeps whatever arrived
// meanwhile). On a new connection the load is the reconcile: after the
// first load, every load announces what it changed (loadChanges).

// Where a change was found, for Change.Found and diagnostics.
const (
	FoundEvent     = "event"     // a state event, read again
	FoundReconcile = "reconcile" // a reconcile pass's listing, read again
	FoundLoad      = "load"      // a load after the first (a new connection, a reload)
)

// reconcileDuty bounds the time spent reconciling: a pass (or a load)
// that took d waits at least reconcileDuty×d before the next pass, so a
// scope whose listing is slow is compared less often rather than all the
// time.
const reconcileDuty = 10

// KeyChange is one key whose value a load changed.
type KeyChange struct {
	Key     string
	Removed bool
}

// Change is a change of a scope the catalog applied that the worker did
// not write itself (its own writes are announced by the registry when
// they answer): a row written or deleted by another replica, another
// engine, or any other client of the state store.
type Change struct {
	Scope   string
	Key     string
	Removed bool
	Found   string // FoundEvent, FoundReconcile or FoundLoad
}

// Freshness says how current the mirror is, for skills::diagnostics.
type Freshness struct {
	LastLoad          time.Time     // the last load of a scope that completed
	LastReconcile     time.Time     // the last reconcile pass that completed
	ReconcileInterval time.Duration // 0: no reconcile
	Reconciles        uint64        // passes completed
	ReconcileBytes    int64         // bytes of values the last pass listed
	ReconcileTook     time.Duration // how long the last pass took
	ByEvent           uint64        // changes found by a state event
	ByReconcile       uint64        // changes found by a reconcile pass
	ByLoad            uint64        // changes found by a load after the first
	Signal            string        // SignalPubSub or SignalNone (signal.go)
	BySignal          uint64        // changes found by another replica's signal
}

// SetReconcileInterval sets how often the loaded scopes are compared with
// the store (0: never); call it before Start.
func (c *Catalog) SetReconcileInterval(d time.Duration) { c.reconcileEvery = max(d, 0) }

// OnChange sets the function told of every Change, once per change of a
// key's value, from the catalog's goroutines; it must not block. Its
// context is the catalog's, ended by Close (that of the load or re-read
// that found the change). Call it before Start.
func (c *Catalog) OnChange(f func(context.Context, Change)) { c.onChange = f }

// ReconcileNow asks for a reconcile pass at once (tests, and a deployment
// that learns of a change by other means); Freshness().Reconciles counts
// the passes done.
func (c *Catalog) ReconcileNow() {
	select {
	case c.reconcileNow <- struct{}{}:
	default:
	}
}

// Freshness reports the mirror's freshness now.
func (c *Catalog) Freshness() Freshness {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fresh
	f.ReconcileInterval = c.reconcileEvery
	return f
}

// reconcileTimer paces the passes; it belongs to followConnections.
type reconcileTimer struct {
	every time.Duration
	timer *time.Timer
}

func (c *Catalog) newReconcileTimer() *reconcileTimer {
	rt := &reconcileTimer{every: c.reconcileEvery}
	if rt.every > 0 {
		rt.timer = time.NewTimer(rt.every)
	}
	return rt
}

// due is the timer's channel; nil (never ready) without a reconcile.
func (rt *reconcileTimer) due() <-chan time.Time {
	if rt.timer == nil {
		return nil
	}
	return rt.timer.C
}

// again arms the next pass, the interval after the pass or load that
// took took.
func (rt *reconcileTimer) again(took time.Duration) {
	if rt.timer == nil {
		return
	}
	rt.timer.Stop()
	rt.timer.Reset(max(rt.every, reconcileDuty*took))
}

func (rt *reconcileTimer) stop() {
	if rt.timer != nil {
		rt.timer.Stop()
	}
}

// reconcile runs one pass over the loaded scopes on connection, from
// followConnections (so never during a load). A scope that is not loaded
// is skipped: its next load compares everything. A listing that fails is
// logged and tried again on the next pass.
func (c *Catalog) reconcile(ctx context.Context, connection string) time.Duration {
	start := time.Now()
	var listed int64
	for _, s := range c.scopes {
		if !s.Valid() || !c.sameConnection(ctx, connection) {
			continue
		}
		pass := s.beginPass()
		err := c.listScope(ctx, s.Name(), connection, func(v json.RawMessage) {
			listed += int64(len(v))
			key, ok := s.keyOf(v)
			if !ok {
				return // a value without a key is not mirrored (Get says so)
			}
			sum := sumOf(v)
			if !s.seen(key, sum, pass) && !c.knownUndecodable(s.Name(), key, sum) {
				c.found(s.Name(), key)
			}
		}, nil)
		if err != nil {
			if ctx.Err() == nil {
				c.log.Warn("catalog: could not list a scope to reconcile it; the next pass tries again",
					zap.String("scope", s.Name()), zap.Error(err))
			}
			continue
		}
		for _, key := range s.unseen(pass) {
			c.found(s.Name(), key)
		}
	}
	took := time.Since(start)
	c.mu.Lock()
	c.fresh.LastReconcile = time.Now()
	c.fresh.Reconciles++
	c.fresh.ReconcileBytes = listed
	c.fresh.ReconcileTook = took
	c.mu.Unlock()
	return took
}

// found queues key to be read again as an event's key is, remembering that
// the reconcile found it.
func (c *Catalog) found(scope, key string) { c.foundBy(scope, key, FoundReconcile) }

// foundBy queues key to be read again as an event's key is, remembering
// where it was found (FoundReconcile, FoundSignal).
func (c *Catalog) foundBy(scope, key, where string) {
	ev := stateEvent{Scope: scope, Key: key}
	c.mu.Lock()
	c.foundWhere[ev] = where
	c.mu.Unlock()
	c.events.push(ev)
}

// takeFound says where ev was found, FoundEvent unless a reconcile pass or
// a signal queued it, and forgets it: the read that follows is the one
// they asked for.
func (c *Catalog) takeFound(ev stateEvent) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	where, ok := c.foundWhere[ev]
	delete(c.foundWhere, ev)
	if !ok {
		return FoundEvent
	}
	return where
}

// knownUndecodable reports whether the value with hash sum at scope/key
// is the one last found not to decode (noteUndecodable): reading it again
// would change nothing.
func (c *Catalog) knownUndecodable(scope, key string, sum valueSum) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	bad, ok := c.undecodable[scope+"\x00"+key]
	return ok && bad == sum
}

// changed counts a change and tells the OnChange function, with ctx.
func (c *Catalog) changed(ctx context.Context, ch Change) {
	c.mu.Lock()
	switch ch.Found {
	case FoundEvent:
		c.fresh.ByEvent++
	case FoundReconcile:
		c.fresh.ByReconcile++
	case FoundLoad:
		c.fresh.ByLoad++
	case FoundSignal:
		c.fresh.BySignal++
	}
	c.mu.Unlock()
	if c.onChange != nil {
		c.onChange(ctx, ch)
	}
}

// loaded records a completed load.
func (c *Catalog) loaded() {
	c.mu.Lock()
	c.fresh.LastLoad = time.Now()
	c.mu.Unlock()
}

// beginPass starts a reconcile pass of s and returns its number.
func (s *Scope) beginPass() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.passes++
	return s.passes
}

// seen marks key as listed by pass and reports whether its entry's value
// has hash sum.
func (s *Scope) seen(key string, sum valueSum, pass uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	en, ok := s.entries[key]
	if !ok {
		return false
	}
	en.seen = pass
	return en.sum == sum
}

// unseen returns the keys held that pass did not list: gone from the
// store, or written since the listing passed them (reading those again
// changes nothing). None when the scope is no longer loaded: its next
// load compares everything.
func (s *Scope) unseen(pass uint64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.valid {
		return nil
	}
	var keys []string
	for key, en := range s.entries {
		if en.seen != pass {
			keys = append(keys, key)
		}
	}
	return keys
}

// keyOf reads the key of a listed value: its key field located with the
// codec's scanner, which stops there (a row's key comes first as this
// worker and the engines write it, so the body is not scanned), nothing
// decoded, for the scopes that name one (NewSkillsScope,
// NewPromptsScope); else as the decoder reads it.
func (s *Scope) keyOf(v json.RawMessage) (string, bool) {
	if s.keyField == "" {
		d, ok := s.decode(v)
		return d.Key, ok
	}
	var raw []byte
	err := wire.EachMember(v, func(name string, value []byte) error {
		if name != s.keyField {
			return nil
		}
		raw = value
		return errKeyFound
	})
	if err != errKeyFound {
		return "", false
	}
	key, err := wire.String(raw)
	return key, err == nil && key != ""
}

// errKeyFound stops keyOf's scan at the key.
var errKeyFound = errors.New("key found")

// sameContent reports whether d holds what en holds, by the scope's
// sameSummary: a value whose bytes differ but which says the same (an
// engine that writes a value's bytes differently in two answers, a row's
// unknown fields) is no change to announce. Without sameSummary only the
// bytes tell.
func (s *Scope) sameContent(en *entry, d Decoded) bool {
	return s.sameSummary != nil && en.err == nil && d.Err == nil && s.sameSummary(en.summary, d.Summary)
}

// loadChanges are the keys whose value a load's snapshot changes, against
// the entries held before it: new or different (by hash), and gone. Keys
// changed during the load are read again after it and left out, as are
// rows that do not decode (listings skip them).
func (s *Scope) loadChanges(before map[string]*entry, snapshot []Decoded, dirty map[string]struct{}) []KeyChange {
	var changes []KeyChange
	listed := make(map[string]struct{}, len(snapshot))
	for _, d := range snapshot {
		listed[d.Key] = struct{}{}
		if _, skip := dirty[d.Key]; skip || d.Err != nil {
			continue
		}
		if prev, ok := before[d.Key]; !ok || prev.err != nil || prev.sum != d.sum && !s.sameContent(prev, d) {
			changes = append(changes, KeyChange{Key: d.Key})
		}
	}
	for key, prev := range before {
		_, kept := listed[key]
		_, skip := dirty[key]
		if !kept && !skip && prev.err == nil {
			changes = append(changes, KeyChange{Key: key, Removed: true})
		}
	}
	return changes
}
