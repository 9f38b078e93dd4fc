package catalog

import (
	"context"
	"encoding/json"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
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

// set stores value at key, replacing any previous value. The mirror takes
// the value as the engine stored it (state::set answers with new_value).
func (s store) set(ctx context.Context, key string, value any) error {
	res, err := s.call(ctx, "state::set", stateSet{s.scope, key, value})
	if err != nil || s.mirror == nil {
		return err
	}
	var out struct {
		NewValue json.RawMessage `json:"new_value"`
	}
	if json.Unmarshal(res, &out) == nil && contract.Present(out.NewValue) != nil {
		s.mirror.PutOwn(key, out.NewValue)
	} else {
		// An engine that does not echo the value: the mirror must not
		// answer until it has loaded the scope again (it asks at once).
		s.mirror.Invalidate()
	}
	return nil
}

// delete removes key and reports whether a value was there.
func (s store) delete(ctx context.Context, key string) (removed bool, err error) {
	res, err := s.call(ctx, "state::delete", stateKey{s.scope, key})
	if err != nil {
		return false, err
	}
	if s.mirror != nil {
		s.mirror.DeleteOwn(key)
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
