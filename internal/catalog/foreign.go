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
// writer's event, and what to tell of them.
type foreignChanges struct {
	mu     sync.Mutex
	keys   map[stateEvent]struct{}
	notify func(ForeignChange)
}

// OnForeignChange sets what is told of each change another writer made,
// after the catalog applied it. Call it before Start.
func (c *Catalog) OnForeignChange(f func(ForeignChange)) {
	c.foreign.mu.Lock()
	defer c.foreign.mu.Unlock()
	c.foreign.notify = f
}

// markForeign records that the re-read of ev follows another writer's
// event.
func (c *Catalog) markForeign(ev stateEvent) {
	c.foreign.mu.Lock()
	defer c.foreign.mu.Unlock()
	if c.foreign.notify == nil {
		return
	}
	if c.foreign.keys == nil {
		c.foreign.keys = map[stateEvent]struct{}{}
	}
	c.foreign.keys[ev] = struct{}{}
}

// takeForeign reports whether ev was marked, unmarking it, and what to
// tell.
func (c *Catalog) takeForeign(ev stateEvent) (func(ForeignChange), bool) {
	c.foreign.mu.Lock()
	defer c.foreign.mu.Unlock()
	if _, ok := c.foreign.keys[ev]; !ok {
		return nil, false
	}
	delete(c.foreign.keys, ev)
	return c.foreign.notify, c.foreign.notify != nil
}

// present reports whether s holds key.
func present(s *Scope, key string) bool {
	_, found, _ := s.Get(key)
	return found
}
