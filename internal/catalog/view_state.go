package catalog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// StateSkill is what the view keeps of a stored skill row: everything a
// listing needs, so no listing reads a body; the skills scope's Summary.
type StateSkill struct {
	ID           string
	RegisteredAt string
	Revision     int64 // the row's revision, 0 when it has none (D83)
	Meta
}

// Caller makes one engine call; a nil result is no result.
type Caller interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
}

// stateSkills lists the stored skills sorted by id: from the catalog's
// scope while it is loaded, else with one state::list, decoding only the
// rows the last such listing did not hold (identical bytes decode to the
// same summary, so a hit is never stale). version and cacheable say which
// content the answer stands for: with the scope read through, it cannot
// be known without reading it.
func (v *View) stateSkills(ctx context.Context) (out []StateSkill, version uint64, cacheable bool, err error) {
	if s := v.skills; s != nil && s.Valid() {
		version = s.Version() // read before the summaries: a change meanwhile has a newer one
		if summaries, ok := s.Summaries(); ok {
			out = make([]StateSkill, len(summaries))
			for i, sum := range summaries {
				out[i] = sum.(StateSkill) // sorted by id already: the scope's key
			}
			return out, version, true, nil
		}
	}
	values, err := v.skillRows.values(ctx)
	if err != nil {
		return nil, 0, false, err
	}
	return v.readThrough.decode(values), 0, false, nil
}

// rowCache remembers the summaries of the rows of the last read-through
// listing, keyed by a seeded hash of each row's bytes.
type rowCache struct {
	seed    maphash.Seed
	mu      sync.Mutex
	entries map[uint64]StateSkill
}

func newRowCache() *rowCache {
	return &rowCache{seed: maphash.MakeSeed(), entries: map[uint64]StateSkill{}}
}

// decode turns values into summaries sorted by id, skipping rows that do
// not decode (as the Rust worker does).
func (c *rowCache) decode(values []json.RawMessage) []StateSkill {
	c.mu.Lock()
	old := c.entries
	c.mu.Unlock()
	fresh := make(map[uint64]StateSkill, len(values))
	out := make([]StateSkill, 0, len(values))
	for _, raw := range values {
		h := maphash.Bytes(c.seed, raw)
		s, ok := old[h]
		if !ok {
			d, keyed := decodeSkillEntry(raw)
			if !keyed || d.Err != nil {
				continue
			}
			s = d.Summary.(StateSkill)
		}
		fresh[h] = s
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b StateSkill) int { return cmp.Compare(a.ID, b.ID) })
	c.mu.Lock()
	c.entries = fresh
	c.mu.Unlock()
	return out
}

// ListValues extracts the values from a state::list result. The engine
// answers with a flat array; {items:[{value}]} and {value:[…]} are
// accepted too, as the reference worker does, and any other shape is an
// empty scope.
func ListValues(res json.RawMessage) []json.RawMessage {
	res = bytes.TrimSpace(res)
	if len(res) == 0 {
		return nil
	}
	switch res[0] {
	case '[':
		return wire.ArrayElements(res)
	case '{':
		// As the reference reads it: items when it is an array (each item's
		// value, items without one dropped), else value when it is an array.
		var wrapped map[string]json.RawMessage
		if json.Unmarshal(res, &wrapped) != nil {
			return nil
		}
		var items []json.RawMessage
		if json.Unmarshal(wrapped["items"], &items) == nil && items != nil {
			values := make([]json.RawMessage, 0, len(items))
			for _, it := range items {
				var item map[string]json.RawMessage
				if json.Unmarshal(it, &item) == nil && item["value"] != nil {
					values = append(values, item["value"])
				}
			}
			return values
		}
		var values []json.RawMessage
		if json.Unmarshal(wrapped["value"], &values) != nil {
			return nil
		}
		return values
	default:
		return nil
	}
}

// ReadThroughRows is how many rows the read-through cache holds: those of
// the last listing, never more.
func (v *View) ReadThroughRows() int {
	v.readThrough.mu.Lock()
	defer v.readThrough.mu.Unlock()
	return len(v.readThrough.entries)
}
