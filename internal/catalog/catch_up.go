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
