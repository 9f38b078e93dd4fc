package usage

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// stage is one counted use; cell holds one counter per stage.
type stage int

const (
	stageListed stage = iota
	stageRank1
	stageRank2to3
	stageRank4to10
	stageRankBelow
	stageRead
	stageFetched
	stageServed
	stages
)

// cell is one id's counters since the replica started: atomic, so
// counting takes no lock once the id has a cell.
type cell struct {
	n           [stages]atomic.Uint64
	first, last atomic.Int64 // unix nanoseconds; 0 before any use
	// base is n when the current hour began (D87): n - base is the
	// hour's counts. Guarded by Counter.hoursMu.
	base Counts
}

func (c *cell) add(st stage, n uint64, at int64) {
	c.n[st].Add(n)
	// A listing is folded in after the uses that followed it, so first
	// moves back as well as being set.
	for {
		first := c.first.Load()
		if first != 0 && first <= at || c.first.CompareAndSwap(first, at) {
			break
		}
	}
	for {
		last := c.last.Load()
		if last >= at || c.last.CompareAndSwap(last, at) {
			return
		}
	}
}

func (c *cell) row() Row {
	var k Counts
	for st := range k {
		k[st] = c.n[st].Load()
	}
	r := k.row()
	if f := c.first.Load(); f != 0 {
		r.FirstUsed = time.Unix(0, f).UTC()
	}
	if l := c.last.Load(); l != 0 {
		r.LastUsed = time.Unix(0, l).UTC()
	}
	return r
}

// listing is one listing answered n times since the last fold: its ids
// are added to their cells then, not on every answer (a listing of
// 10,000 skills costs an answer one counter).
type listing struct {
	ids         func() []string
	n           uint64
	first, last int64
}

// Counter counts the uses of one replica, by id and stage, since it
// was made (docs/decisions.md D84). It is safe for concurrent use; its
// methods never block on anything but a short lock when a listing is
// counted, and never fail. The zero Counter is not usable: NewCounter.
type Counter struct {
	now      func() time.Time
	skills   sync.Map // id → *cell
	sections sync.Map // function id → *cell
	changed  atomic.Bool

	mu       sync.Mutex
	listings map[any]*listing

	// hour is the UTC hour counts are being made in (0 before the first
	// use), hourEnd when it ends (unix nanoseconds); closed the hours
	// before it that are kept, oldest first (D87).
	hour, hourEnd atomic.Int64
	hoursMu       sync.Mutex
	closed        []Hour
}

// NewCounter returns an empty counter reading the time from now (nil:
// time.Now).
func NewCounter(now func() time.Time) *Counter {
	if now == nil {
		now = time.Now
	}
	return &Counter{now: now, listings: map[any]*listing{}}
}

func cellOf(m *sync.Map, id string) *cell {
	if c, ok := m.Load(id); ok {
		return c.(*cell)
	}
	c, _ := m.LoadOrStore(id, new(cell))
	return c.(*cell)
}

func (c *Counter) mark() {
	if !c.changed.Load() {
		c.changed.Store(true)
	}
}

func (c *Counter) count(m *sync.Map, id string, st stage) {
	at := c.now().UnixNano()
	c.enterHour(at)
	cellOf(m, id).add(st, 1, at)
	c.mark()
}

// Listed counts one answer that listed the ids ids returns. Answers
// with the same key (comparable; a listing's version and the surface)
// list the same ids, so ids is called once per key between two folds;
// a nil key calls it at once.
func (c *Counter) Listed(key any, ids func() []string) {
	at := c.now().UnixNano()
	c.enterHour(at)
	c.mu.Lock()
	if key == nil {
		key = new(int) // unique: never coalesced
	}
	l := c.listings[key]
	if l == nil {
		l = &listing{ids: ids, first: at}
		c.listings[key] = l
	}
	l.n++
	l.last = at
	c.mu.Unlock()
	c.mark()
}

// Searched counts id as the result at rank (1 for the first) of one
// skill::search answer.
func (c *Counter) Searched(id string, rank int) {
	st := stageRankBelow
	switch {
	case rank <= 1:
		st = stageRank1
	case rank <= 3:
		st = stageRank2to3
	case rank <= 10:
		st = stageRank4to10
	}
	c.count(&c.skills, id, st)
}

// Read counts one read of id's body alone.
func (c *Counter) Read(id string) { c.count(&c.skills, id, stageRead) }

// Fetched counts one skill::fetch answer that held id.
func (c *Counter) Fetched(id string) { c.count(&c.skills, id, stageFetched) }

// Section counts one iii://fn section served by functionID.
func (c *Counter) Section(functionID string) { c.count(&c.sections, functionID, stageServed) }

// fold adds the listings counted since the last fold to their ids'
// cells. Called with hoursMu held, so a listing lands in the hour it was
// answered in.
func (c *Counter) fold() {
	c.mu.Lock()
	pending := c.listings
	c.listings = map[any]*listing{}
	c.mu.Unlock()
	for _, l := range pending {
		for _, id := range l.ids() {
			cl := cellOf(&c.skills, id)
			cl.add(stageListed, l.n, l.first)
			cl.add(stageListed, 0, l.last)
		}
	}
}

// Record is the counter's totals as replica's record, listings folded
// in first, with every hour kept, oldest first (D87).
func (c *Counter) Record(replica string) Record {
	rec, closed := c.snapshot(replica)
	rec.Hours = append(closed, rec.Hours...)
	return rec
}

// snapshot is the counter's totals as replica's record with the current
// hour alone, and the closed hours kept, oldest first: the Flusher
// writes a closed hour once, under its own key (D87).
func (c *Counter) snapshot(replica string) (Record, []Hour) {
	c.hoursMu.Lock()
	defer c.hoursMu.Unlock()
	c.fold()
	rec := Record{Replica: replica, UpdatedAt: c.now().UTC(), Skills: map[string]Row{}, Sections: map[string]Row{}}
	if open := c.openHourLocked(); !open.empty() {
		rec.Hours = []Hour{open}
	}
	for _, m := range []struct {
		from *sync.Map
		to   map[string]Row
	}{{&c.skills, rec.Skills}, {&c.sections, rec.Sections}} {
		m.from.Range(func(k, v any) bool {
			m.to[k.(string)] = v.(*cell).row()
			return true
		})
	}
	return rec, slices.Clone(c.closed)
}
