package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
)

// Caller makes synchronous calls to engine functions. A nil result means
// the function answered with no result or with null (state::get of a
// missing key answers with no result at all). Remote failures are
// *iii.Error. The iii client satisfies it.
type Caller interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
}

// Notifier fans a payload out to the subscribers of one trigger type
// (skills::on-change or prompts::on-change) without waiting for them, and
// returns how many it reached. The iii client's trigger-type provider
// satisfies it.
type Notifier interface {
	Fire(ctx context.Context, payload any) int
}

// store is one state scope reached through state::* calls, each bounded by
// the state timeout. With a mirror (the worker's catalog of the scope,
// docs/decisions.md D17) successful writes are applied to it before the call
// returns (D18); reads consult the mirror first (mirror.go) and come here
// only when it cannot vouch for its answer.
type store struct {
	caller  Caller
	scope   string
	timeout time.Duration
	mirror  *catalog.Scope
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
	return present(res), nil
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
	if json.Unmarshal(res, &out) == nil && present(out.NewValue) != nil {
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
	return present(res) != nil, nil
}

// values returns the scope's values, split from a state::list result.
func (s store) values(ctx context.Context) ([]json.RawMessage, error) {
	res, err := s.call(ctx, "state::list", stateScope{s.scope})
	if err != nil {
		return nil, err
	}
	return catalog.ListValues(res), nil
}

// list returns the raw state::list result of the scope; decodeRows reads
// it.
func (s store) list(ctx context.Context) (json.RawMessage, error) {
	return s.call(ctx, "state::list", stateScope{s.scope})
}

// present returns nil for an absent or null result, else the result.
func present(res json.RawMessage) json.RawMessage {
	res = bytes.TrimSpace(res)
	if len(res) == 0 || bytes.Equal(res, []byte("null")) {
		return nil
	}
	return res
}

// timestampLayout renders registered_at (docs/decisions.md D11): RFC 3339 in UTC
// with a "+00:00" offset and exactly nine fractional digits, as the Rust
// worker writes it.
const timestampLayout = "2006-01-02T15:04:05.000000000+00:00"

// timestamp formats t as a registered_at value; the zero time (an fs
// entry whose mtime is unknown) is "".
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timestampLayout)
}
