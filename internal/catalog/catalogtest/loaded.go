package catalogtest

import "context"

// Scope is what WaitLoaded needs of a catalog scope; *catalog.Scope has
// it.
type Scope interface {
	Valid() bool
	Changed() <-chan struct{}
}

// WaitLoaded waits until s is loaded (Valid), or returns ctx's error.
// The change channel is taken before validity is read: a load that ends
// in between closes a channel already held. Taken after, it would be the
// channel of the change after the load, and a rig whose scope then stays
// still would wait out its deadline on a loaded scope (docs/testing.md).
func WaitLoaded(ctx context.Context, s Scope) error {
	for {
		changed := s.Changed()
		if s.Valid() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
