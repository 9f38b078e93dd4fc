package usage

import (
	"encoding/json"
	"sync"
	"time"
)

// HoursKept is how many UTC hours of counts a record keeps, the current
// one included (docs/decisions.md D87): two days, so skills::usage's
// since can say what happened since yesterday. Older hours drop out of
// the record; their uses stay in the all-time totals.
const HoursKept = 48

// hourNanos is one bucket's width.
const hourNanos = int64(time.Hour)

// hourOf is the UTC hour (hours since the Unix epoch) unix nanoseconds
// at fall in.
func hourOf(at int64) int64 { return floorDiv(at, hourNanos) }

// hourOfTime is the UTC hour t falls in, for any t (a caller's since may
// lie beyond what unix nanoseconds hold).
func hourOfTime(t time.Time) int64 { return floorDiv(t.Unix(), 3600) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a < 0 && a%b != 0 {
		q--
	}
	return q
}

// hourStart is the time hour h starts.
func hourStart(h int64) time.Time { return time.Unix(h*3600, 0).UTC() }

// Counts is one id's uses in one hour, a count per stage in the order
// listed, rank 1, rank 2-3, rank 4-10, rank 11+, read, fetched, served.
// On the wire its trailing zeros are left out (a listing alone is [n]):
// a record holds an hour per id used in it, and most uses are listings.
type Counts [stages]uint64

// MarshalJSON is the counts without their trailing zeros; reading fills
// what is missing with zeros.
func (k Counts) MarshalJSON() ([]byte, error) {
	n := len(k)
	for n > 0 && k[n-1] == 0 {
		n--
	}
	return json.Marshal(k[:n])
}

func (k Counts) zero() bool { return k == Counts{} }

func (k *Counts) add(o Counts) {
	for i := range k {
		k[i] += o[i]
	}
}

// row is k as a Row's counts (no times).
func (k Counts) row() Row {
	r := Row{Listed: k[stageListed], Rank1: k[stageRank1], Rank2to3: k[stageRank2to3],
		Rank4to10: k[stageRank4to10], RankBelow: k[stageRankBelow],
		Read: k[stageRead], Fetched: k[stageFetched], Served: k[stageServed]}
	r.Searched = r.Rank1 + r.Rank2to3 + r.Rank4to10 + r.RankBelow
	return r
}

// Hour is the uses one replica counted in one UTC hour, by id: the
// record's time dimension, which skills::usage's since adds up.
type Hour struct {
	// Start is the hour's first instant.
	Start time.Time `json:"start"`
	// Skills and Sections are the counts by skill id and by function id.
	Skills   map[string]Counts `json:"skills,omitempty"`
	Sections map[string]Counts `json:"sections,omitempty"`
}

// MarshalJSON writes the hour with its start in the registry's one time
// layout (D87).
func (h Hour) MarshalJSON() ([]byte, error) {
	type fields Hour
	return json.Marshal(struct {
		fields
		Start string `json:"start"`
	}{fields(h), stamp(h.Start)})
}

func (h Hour) empty() bool { return len(h.Skills)+len(h.Sections) == 0 }

// enterHour moves the counter to at's hour when at is in a later one:
// the counts since the last move are closed into the hour they were made
// in. A use racing the move may land in the next hour; none is lost or
// counted twice. The read path pays one atomic load and a compare for it.
func (c *Counter) enterHour(at int64) {
	if at >= c.hourEnd.Load() {
		c.roll(hourOf(at))
	}
}

func (c *Counter) roll(h int64) {
	c.hoursMu.Lock()
	defer c.hoursMu.Unlock()
	cur := c.hour.Load()
	if h <= cur {
		return
	}
	if cur != 0 {
		c.fold()
		if closed := c.sinceBaseLocked(cur, true); !closed.empty() {
			c.closed = append(c.closed, closed)
		}
	}
	c.hour.Store(h)
	c.hourEnd.Store((h + 1) * hourNanos)
	keep := c.closed[:0]
	for _, old := range c.closed {
		if hourOfTime(old.Start) > h-HoursKept {
			keep = append(keep, old)
		}
	}
	c.closed = keep
}

// sinceBaseLocked is the counts made since each cell's base, as hour
// h's; advance moves the bases to the counts read, so they are counted
// once. Each counter is loaded once: a use added after its load stays
// above the new base for the next hour. Called with hoursMu held.
func (c *Counter) sinceBaseLocked(h int64, advance bool) Hour {
	out := Hour{Start: hourStart(h)}
	for _, m := range []struct {
		from *sync.Map
		to   *map[string]Counts
	}{{&c.skills, &out.Skills}, {&c.sections, &out.Sections}} {
		m.from.Range(func(k, v any) bool {
			cl := v.(*cell)
			var now, d Counts
			for st := range now {
				now[st] = cl.n[st].Load()
				d[st] = now[st] - cl.base[st]
			}
			if advance {
				cl.base = now
			}
			if !d.zero() {
				if *m.to == nil {
					*m.to = map[string]Counts{}
				}
				(*m.to)[k.(string)] = d
			}
			return true
		})
	}
	return out
}

// openHourLocked is the current hour's counts so far (empty before the
// first use). Called with hoursMu held.
func (c *Counter) openHourLocked() Hour {
	if cur := c.hour.Load(); cur != 0 {
		return c.sinceBaseLocked(cur, false)
	}
	return Hour{}
}
