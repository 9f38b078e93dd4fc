package catalog

import (
	"context"
	"encoding/json"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// store is one state scope reached through state::* calls, each bounded by
// the state timeout: the only place the worker calls state::* for its
// scopes. With a mirror (the catalog's Scope, docs/decisions.md D17)
// successful writes are applied to it before the call returns (D18);
// reads consult the mirror first (stored.go) and come here only when it
// cannot vouch for its answer.
type store struct {
	caller  Caller
	scope   string
	timeout time.Duration
	mirror  *Scope
}

type stateKey struct {
	Scope string `json:"scope"`
	Key   string `json:"key"`
}

type stateSet struct {
	Scope string `json:"scope"`
	Key   string `json:"key"`
	Value any    `json:"value"`
}

type stateScope struct {
	Scope string `json:"scope"`
}

// call runs one state function with the timeout; failures become
// unavailable errors naming the function.
func (s store) call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, err := s.caller.Call(ctx, fn, data)
	if err != nil {
		return nil, contract.Unavailable(fn, err)
	}
	return res, nil
}

// get returns the value stored at key, or nil when there is none.
func (s store) get(ctx context.Context, key string) (json.RawMessage, error) {
	res, err := s.call(ctx, "state::get", stateKey{s.scope, key})
	if err != nil {
		return nil, err
	}
	return contract.Present(res), nil
}

// set stores value at key, replacing any previous value: one state::set,
// and nothing else (docs/decisions.md D51). The mirror holds the new
// value before set returns (D18): own, what the caller knows it wrote,
// or else the value the engine echoed (new_value), decoded. The echo is
// only located, not decoded, when own is given: its hash is how the
// mirror recognises the state event of this write (own_writes.go), and
// the fingerprint in the write's version (D78; the zero WriteVersion when the
// engine echoes nothing).
func (s store) set(ctx context.Context, key string, value any, own *Decoded) (WriteVersion, error) {
	if s.mirror == nil {
		res, err := s.call(ctx, "state::set", stateSet{s.scope, key, value})
		if err != nil {
			return WriteVersion{}, err
		}
		if echo := newValue(res); echo != nil {
			return VersionOf(s.scope, key, echo), nil
		}
		return WriteVersion{}, nil
	}
	s.mirror.beginOwnWrite(key)
	res, err := s.call(ctx, "state::set", stateSet{s.scope, key, value})
	if err != nil {
		s.mirror.endOwnWrite(key, nil, valueSum{})
		return WriteVersion{}, err
	}
	echo := newValue(res)
	if echo == nil {
		// An engine that does not echo the value: the mirror must not
		// answer until it has loaded the scope again (it asks at once).
		s.mirror.endOwnWrite(key, nil, valueSum{})
		s.mirror.Invalidate()
		return WriteVersion{}, nil
	}
	ver := VersionOf(s.scope, key, echo)
	d := own
	if d == nil {
		decoded, ok := s.mirror.decode(echo)
		if ok && decoded.Key != key {
			// As Put: a row under another key cannot be mirrored.
			s.mirror.endOwnWrite(key, nil, valueSum{})
			s.mirror.Invalidate()
			return ver, nil
		}
		d = &decoded
	}
	s.mirror.endOwnWrite(key, d, ver.sum)
	return ver, nil
}

// newValue is the new_value of a state::set result, nil when there is
// none (or it is null). The result was checked when its frame was read;
// the codec's scanner only locates the member.
func newValue(res json.RawMessage) json.RawMessage {
	m, err := wire.Members(res, "new_value")
	if err != nil {
		return nil
	}
	return contract.Present(m[0])
}

// delete removes key and reports whether a value was there. The mirror
// follows the delete as it follows an own write (own_writes.go): its
// state event is recognised as the echo, however early it comes.
func (s store) delete(ctx context.Context, key string) (removed bool, err error) {
	if s.mirror != nil {
		s.mirror.beginOwnWrite(key)
	}
	res, err := s.call(ctx, "state::delete", stateKey{s.scope, key})
	if err != nil {
		if s.mirror != nil {
			s.mirror.endOwnWrite(key, nil, valueSum{})
		}
		return false, err
	}
	if s.mirror != nil {
		s.mirror.endOwnDelete(key)
	}
	return contract.Present(res) != nil, nil
}

// values returns the scope's values, split from a state::list result.
func (s store) values(ctx context.Context) ([]json.RawMessage, error) {
	res, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	return ListValues(res), nil
}

// list returns the raw state::list result of the scope; decodeRows reads
// it.
func (s store) list(ctx context.Context) (json.RawMessage, error) {
	return s.call(ctx, "state::list", stateScope{s.scope})
}
