package catalog

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// Reading after a version (docs/decisions.md D78). A replica's mirror
// learns of another replica's write by a state event (D23, one engine) or
// a reconcile pass (D73, engines sharing a store): late either way. A read
// given the versions a caller's writes answered with does not wait for
// that: for each version whose value the mirror does not hold, it reads
// the key again from state at once, on the path a state event's key takes
// (never two reads of one key at once, the entry's generation checked
// before the value is applied, the change announced once), and answers
// from the mirror after. State holds every acknowledged write, so what
// the read finds is the version's value or a newer one, and a newer one
// is served.

// ReadAfter makes sure that every version in after is served by the view,
// or a newer value of its key: it returns once each named key's entry
// holds the version's value, or has been read again from state since the
// call began, or the scope is read through (every read then goes to
// the engine). A token for a scope the view does not serve is an
// invalid_argument error; a key that cannot be read again within the
// state timeout an unavailable one, naming the version.
func (v *View) ReadAfter(ctx context.Context, after After) error {
	if len(after) == 0 {
		return nil
	}
	versions, err := after.Versions()
	if err != nil {
		return err
	}
	if v.skillRows.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, v.skillRows.timeout)
		defer cancel()
	}
	for _, ver := range versions {
		var s *Scope
		switch ver.Scope {
		case v.skillRows.scope:
			s = v.skills
		case v.promptRows.scope:
			s = v.prompts
		default:
			return contract.Invalidf("version %s is for the state scope %s, which this worker does not serve (its scopes are %s and %s): pass a version from this deployment's writes",
				ids.Quote(ver.Token()), ids.Quote(ver.Scope), ids.Quote(v.skillRows.scope), ids.Quote(v.promptRows.scope))
		}
		if s == nil {
			continue // no mirror: every read asks the engine
		}
		if err := s.readAfter(ctx, ver); err != nil {
			return contract.Unavailable(fmt.Sprintf("read %s/%s after version %s", s.Name(), ids.Unquoted(ver.Key), ver.Token()), err)
		}
	}
	return nil
}

// errNotFed is readAfter's error for a scope no Catalog feeds.
var errNotFed = errors.New("the scope is not kept current by a catalog, so it cannot be read again")

// readAfter returns once the scope serves ver's value of its key or a
// newer one. A load in flight is waited for (its snapshot may predate
// the write, and the keys changed during it are read again after it);
// otherwise the key is read again until a read's value is applied.
func (s *Scope) readAfter(ctx context.Context, ver WriteVersion) error {
	for {
		held, loading, changed := s.holds(ver)
		switch {
		case held:
			return nil
		case loading:
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-changed:
			}
			continue
		case s.readNow == nil:
			return errNotFed
		}
		settled, err := s.readNow(ctx, ver.Key)
		if err != nil {
			return err
		}
		if settled {
			return nil
		}
	}
}

// holds reports whether the scope serves ver's value or one at least as
// new: its entry has the version's fingerprint (for a delete, there is
// none), or the scope is not loaded and no load is in flight (reads go to
// the engine, and a load that begins later lists state as it is then).
// While a load is in flight it reports loading, with the channel closed
// when it ends.
func (s *Scope) holds(ver WriteVersion) (held, loading bool, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loading {
		return false, true, s.changed
	}
	if !s.valid {
		return true, false, nil
	}
	return s.entryIs(ver.Key, &ver.sum, ver.Deleted), false, nil
}

// readNow reads key of s again at once for a read after a version, never
// beside another read of the key (queue.go). A read that fails makes the
// scope stop vouching for itself until it is loaded again, as a state
// event's does (applyEvent).
func (c *Catalog) readNow(ctx context.Context, s *Scope, key string) (settled bool, err error) {
	ev := stateEvent{Scope: s.Name(), Key: key}
	if !c.events.claim(ctx, ev) {
		return false, ctx.Err()
	}
	defer c.events.done(ev)
	settled, err = c.reread(ctx, s, key, FoundEvent)
	if err != nil && ctx.Err() == nil {
		c.log.Warn("catalog: could not read a key a caller asked to be current; the scope is reloaded",
			zap.String("scope", s.Name()), zap.String("key", ids.Clip(key)), zap.Error(err))
		s.Invalidate()
	}
	return settled, err
}
