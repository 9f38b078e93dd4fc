package iii

import "context"

// ConnectionWaiter is what FeedConnections follows (*Client).
type ConnectionWaiter interface {
	WaitConnection(ctx context.Context, previous string) (string, error)
}

// FeedConnections sends the worker id of every new connection of c to
// out, in order, until ctx ends or c stops for good, then closes out: the
// loop of every component that does something on each connection (the
// catalog loads its scopes, live configuration ensures its entry).
func FeedConnections(ctx context.Context, c ConnectionWaiter, out chan<- string) {
	defer close(out)
	previous := ""
	for {
		id, err := c.WaitConnection(ctx, previous)
		if err != nil {
			return
		}
		previous = id
		select {
		case out <- id:
		case <-ctx.Done():
			return
		}
	}
}
