package catalog

import "sync"

// Changes made by another writer (docs/decisions.md D72). The replica of
// the worker that provides skills::on-change and prompts::on-change
// announces every change, whichever replica (or other client) wrote it:
// its own writes where it makes them, the others' here, once the catalog
// has read the key again. A burst of writes to one key read once is
// announced once, with the state it left.

// ForeignChange is a change of a key of one of the catalog's scopes that
// was not this worker's own write, as the catalog applied it: Present
// says whether the key holds a value now. A key that held none before
// and holds none after is not reported (a delete of a missing key).
type ForeignChange struct {
	Scope   string
	Key     string
	Present bool
}

// foreignChanges holds the keys whose queued re-read follows another
// writer's event, with what the last such event said, and what to tell
// of them.
type foreignChanges struct {
	mu     sync.Mutex
	keys   map[stateEvent]foreignEvent
	notify func(ForeignChange)
}

// foreignEvent is what a state event said of its key: whether it held a
// value before the write and holds one after. It decides what is told
// when the scope cannot apply the change now (it is being loaded, or
// will be: the load reads the key anyway).
type foreignEvent struct{ before, after bool }

// OnForeignChange sets what is told of each change another writer made,
// after the catalog applied it. Call it before Start.
func (c *Catalog) OnForeignChange(f func(ForeignChange)) {
	c.foreign.mu.Lock()
	defer c.foreign.mu.Unlock()
	c.foreign.notify = f
}

// markForeign records that the re-read of ev follows another writer's
// event, which said fe of the key.
func (c *Catalog) markForeign(ev stateEvent, fe foreignEvent) {
	c.foreign.mu.Lock()
	defer c.foreign.mu.Unlock()
	if c.foreign.notify == nil {
		return
	}
	if c.foreign.keys == nil {
		c.foreign.keys = map[stateEvent]foreignEvent{}
	}
	if prev, ok := c.foreign.keys[ev]; ok {
		fe.before = prev.before // the first of a burst read once
	}
	c.foreign.keys[ev] = fe
}

// takeForeign reports whether ev was marked, unmarking it, what its
// events said, and what to tell.
func (c *Catalog) takeForeign(ev stateEvent) (func(ForeignChange), foreignEvent, bool) {
	c.foreign.mu.Lock()
	defer c.foreign.mu.Unlock()
	fe, ok := c.foreign.keys[ev]
	if !ok {
		return nil, fe, false
	}
	delete(c.foreign.keys, ev)
	return c.foreign.notify, fe, c.foreign.notify != nil
}

// present reports whether s holds key.
func present(s *Scope, key string) bool {
	_, found, _ := s.Get(key)
	return found
}
