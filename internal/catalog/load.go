package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// largeLoadBytes is the state::list size above which a load returns its
// transient memory to the system at once.
const largeLoadBytes = 64 << 20

// maxDroppedLoads is how many loads of a scope in a row may end with the
// connection before the scope is no longer mirrored: a scope whose
// state::list is over max_frame_bytes would otherwise cost a reconnect
// every time.
const maxDroppedLoads = 2

// requestReload asks followConnections to load the invalid scopes again.
func (c *Catalog) requestReload() {
	select {
	case c.reload <- struct{}{}:
	default:
	}
}

// watchConnections feeds the id of every new connection to connections,
// until ctx ends or the client stops for good.
func (c *Catalog) watchConnections(ctx context.Context, connections chan<- string) {
	defer c.wg.Done()
	iii.FeedConnections(ctx, c.engine, connections)
}

// followConnections loads every scope on every new connection, and again
// whenever a scope asks for it (it was invalidated by a write the mirror
// could not apply, or a change it could not read). On a connection whose
// engine lacks the state trigger type it waits for the type (stateWatch)
// and loads every scope once it appears.
func (c *Catalog) followConnections(ctx context.Context, connections <-chan string) {
	defer c.wg.Done()
	watch := &stateWatch{c: c}
	defer watch.stopTimer()
	rt := c.newReconcileTimer()
	defer rt.stop()
	current := ""
	for {
		select {
		case id, ok := <-connections:
			if !ok {
				return
			}
			current = id
			for _, s := range c.scopes {
				s.invalidate()
			}
			switch c.stateTriggerAvailable(ctx, current) {
			case stateTypePresent:
				watch.stop()
				c.setMode(ModeLive)
				start := time.Now()
				c.loadAll(ctx, current)
				rt.again(time.Since(start)) // a load compares everything: the next pass is an interval on
				c.settle()
			case stateTypeAbsent:
				c.setMode(ModeReadThrough)
				c.settle()
				watch.start()
			default:
				watch.stop()
				c.setMode(ModeReadThrough)
				c.settle()
			}
		case <-c.reload:
			if current != "" && c.Mode() == ModeLive {
				start := time.Now()
				c.loadAll(ctx, current)
				rt.again(time.Since(start))
			}
		case <-watch.due():
			c.recheck(ctx, current, watch, false)
		case <-c.engineEvent:
			if watch.waiting {
				c.recheck(ctx, current, watch, true)
			}
		case <-rt.due():
			rt.again(c.reconcileLive(ctx, current))
		case <-c.reconcileNow:
			c.reconcileLive(ctx, current)
		case <-ctx.Done():
			return
		}
	}
}

// recheck asks again whether the engine has the state trigger type, on a
// connection that lacked it: present, the catalog goes live and loads
// every scope; absent, it asks again later.
func (c *Catalog) recheck(ctx context.Context, connection string, watch *stateWatch, afterEvent bool) {
	answer, _ := c.askStateType(ctx)
	if !c.sameConnection(ctx, connection) {
		return // the next connection decides afresh
	}
	switch answer {
	case stateTypePresent:
		watch.stop()
		c.log.Info("catalog: the engine's state trigger type appeared; its scopes are mirrored from now on")
		c.setMode(ModeLive)
		c.loadAll(ctx, connection)
	case stateTypeUnknowable:
		watch.stop()
	default:
		watch.again(afterEvent)
	}
}

// loadAll loads each scope that is not loaded, retrying a failed
// state::list while the connection lasts (a later connection loads again
// anyway).
func (c *Catalog) loadAll(ctx context.Context, connection string) {
	for _, s := range c.scopes {
		if s.Valid() || c.droppedTooOften(s) {
			continue
		}
		for {
			err := c.load(ctx, s, connection)
			if err == nil || ctx.Err() != nil {
				c.setDropped(s, 0)
				break
			}
			var shape *shapeError
			if errors.As(err, &shape) {
				// An engine that lists in another shape: this scope is
				// served read-through, as 0.2 did, until the next connection.
				c.log.Warn("catalog: cannot mirror a scope; its reads go to the engine",
					zap.String("scope", s.Name()), zap.Error(err))
				break
			}
			if !c.sameConnection(ctx, connection) {
				// The connection ended during the load, perhaps because of
				// it (a list over max_frame_bytes).
				c.setDropped(s, c.dropCount(s)+1)
				if c.droppedTooOften(s) {
					c.log.Warn("catalog: loading this scope ended the connection twice in a row; it is no longer mirrored and its reads go to the engine (raise max_frame_bytes if its state::list is bigger)",
						zap.String("scope", s.Name()))
				}
				return
			}
			c.log.Warn("catalog: could not load a scope; reads go to the engine until it loads",
				zap.String("scope", s.Name()), zap.Error(err))
			select {
			case <-ctx.Done():
				return
			case <-time.After(retryDelay):
			}
			if !c.sameConnection(ctx, connection) {
				return
			}
		}
	}
}

// sameConnection reports whether connection is still the live one.
func (c *Catalog) sameConnection(ctx context.Context, connection string) bool {
	return ctx.Err() == nil && c.engine.Connection() == connection
}

func (c *Catalog) dropCount(s *Scope) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped[s.Name()]
}

func (c *Catalog) setDropped(s *Scope, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropped[s.Name()] = n
}

func (c *Catalog) droppedTooOften(s *Scope) bool { return c.dropCount(s) >= maxDroppedLoads }

// load replaces a scope's content with a snapshot of it, then reads
// again the keys that changed while it was in flight. The snapshot is read
// in pages of state::list_entries where the engine has it (listPages),
// else with one state::list whose values are decoded one at a time as
// they arrive (listEach), so neither the frame nor the bodies beyond the
// budget are ever held whole. A paged listing the engine cannot finish
// (a scope over its snapshot bounds, a row over the page budget, a
// cursor it no longer knows) costs the rows read so far, and the scope is
// listed again with state::list: a partial snapshot is never taken for
// the scope.
func (c *Catalog) load(ctx context.Context, s *Scope, connection string) error {
	s.BeginLoad()
	l := s.newLoad()
	var listed int64
	err := c.listScope(ctx, s.Name(), connection, func(v json.RawMessage) {
		listed += int64(len(v))
		l.add(v)
	}, func() {
		l.reset()
		listed = 0
	})
	if err != nil {
		l.abort()
		s.AbortLoad()
		return err
	}
	for _, key := range s.finishLoad(ctx, l) {
		c.events.push(stateEvent{Scope: s.Name(), Key: key})
	}
	c.loaded()
	if listed > largeLoadBytes {
		// The values and the bodies beyond the budget are garbage now;
		// give their memory back at once rather than over the next
		// minutes, so a large scope's load does not leave the worker at
		// its peak (docs/decisions.md D22).
		debug.FreeOSMemory()
	}
	c.log.Info("catalog loaded", zap.String("scope", s.Name()), zap.Int("entries", s.Len()))
	return nil
}

// listScope calls each with every value of the scope, in pages of
// state::list_entries where the engine has them (listPages), else with
// one streamed state::list (listEach). A paged listing the engine cannot
// finish is started again with state::list, after restart (when given)
// drops what each was handed. It belongs to followConnections, which owns
// noPages.
func (c *Catalog) listScope(ctx context.Context, scope, connection string, each func(json.RawMessage), restart func()) error {
	err := errNoPages
	if c.noPages != connection {
		err = c.listPages(ctx, scope, each)
	}
	var refused *pagesRefused
	switch {
	case errors.Is(err, errNoPages):
		c.noPages = connection // asked once per connection
	case errors.As(err, &refused):
		c.log.Info("catalog: the paged listing cannot give this scope whole; it is listed with state::list",
			zap.String("scope", scope), zap.Error(err))
	}
	if errors.Is(err, errNoPages) || refused != nil {
		if restart != nil {
			restart()
		}
		err = c.listEach(ctx, scope, each)
	}
	return err
}

// reconcileLive runs a reconcile pass while the catalog is live on a
// connection, and returns how long it took.
func (c *Catalog) reconcileLive(ctx context.Context, connection string) time.Duration {
	if connection == "" || c.Mode() != ModeLive {
		return 0
	}
	return c.reconcile(ctx, connection)
}

// elementCaller is an Engine that can hand over the elements of an array
// result as it reads them (docs/decisions.md D54); *iii.Client can.
type elementCaller interface {
	CallEach(ctx context.Context, functionID string, data any, each func(json.RawMessage)) error
}

// listEach calls each with every value of the scope's state::list, in
// order: streamed when the engine client can, else split from the whole
// result. A result that is not an array is a shapeError.
func (c *Catalog) listEach(ctx context.Context, scope string, each func(json.RawMessage)) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	data := map[string]string{"scope": scope}
	if ec, ok := c.engine.(elementCaller); ok {
		err := ec.CallEach(ctx, "state::list", data, each)
		if errors.Is(err, iii.ErrNotArray) {
			return &shapeError{fmt.Errorf("state::list of scope %s: %w", ids.Quote(scope), err)}
		}
		return err
	}
	res, err := c.engine.Call(ctx, "state::list", data)
	if err != nil {
		return err
	}
	values, err := arrayValues(res)
	if err != nil {
		return &shapeError{fmt.Errorf("state::list of scope %s: %w", ids.Quote(scope), err)}
	}
	for _, v := range values {
		each(v)
	}
	return nil
}

// shapeError is a state::list result that is not an array of values.
type shapeError struct{ err error }

func (e *shapeError) Error() string { return e.err.Error() }
func (e *shapeError) Unwrap() error { return e.err }

// arrayValues splits a state::list result (a JSON array) into its values
// without copying them: on a large scope the frame is held once, and each
// value is decoded into a summary (and a body, within the budget) as it
// is read.
func arrayValues(res json.RawMessage) ([]json.RawMessage, error) {
	res = bytes.TrimSpace(res)
	if len(res) == 0 || bytes.Equal(res, []byte("null")) {
		return nil, nil // no result: an empty scope, as 0.2 reads it
	}
	if res[0] != '[' {
		return nil, errors.New("not a JSON array of values")
	}
	return wire.ArrayElements(res), nil
}
