package catalog

// CatchUp stops every scope from answering from memory until it has been
// loaded again (at once): meanwhile reads go to the engine, which holds
// every acknowledged write. A replica calls it when it takes over the
// functions of one that served until now, whose writes its own mirror
// may not have applied yet (their state events queued behind a load;
// docs/decisions.md D72).
func (c *Catalog) CatchUp() {
	for _, s := range c.scopes {
		s.Invalidate()
	}
}

// ConcurrentRereads is how many changed keys a worker's catalog reads
// again at once (SetRereaders): one read at a time, each a round trip,
// falls behind a few thousand writes a second by another replica
// (BENCHMARKS.md, issue 28).
const ConcurrentRereads = 8

// SetRereaders sets how many changed keys the catalog reads again at
// once, never two reads of one key (queue.go); call it before Start. The
// default, 1, reads them in the order of their events, which tests use
// to know that a key written later was read later.
func (c *Catalog) SetRereaders(n int) {
	c.rereaders = max(n, 1)
}
