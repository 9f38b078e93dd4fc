package usage

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clock is a test time that moves only when told to.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Each stage is counted once per call, search results by rank bucket,
// listings once per answer (folded in when the record is taken), with
// the first and last use of any stage (docs/decisions.md D84).
func TestCounterCountsEachStage(t *testing.T) {
	clk := newClock()
	c := NewCounter(clk.now)
	t0 := clk.now()
	calls := 0
	ids := func() []string { calls++; return []string{"a", "b"} }
	c.Listed("v1", ids)
	c.Listed("v1", ids)
	clk.advance(time.Minute)
	for rank := 1; rank <= 12; rank++ {
		c.Searched("a", rank)
	}
	c.Read("a")
	c.Fetched("a")
	c.Fetched("a")
	clk.advance(time.Minute)
	c.Section("acme::status")
	rec := c.Record("r1")
	if calls != 1 {
		t.Errorf("the ids of one listing version were read %d times; want once", calls)
	}
	want := Record{Replica: "r1", UpdatedAt: t0.Add(2 * time.Minute), Skills: map[string]Row{
		"a": {Listed: 2, Searched: 12, Rank1: 1, Rank2to3: 2, Rank4to10: 7, RankBelow: 2, Read: 1, Fetched: 2,
			FirstUsed: t0, LastUsed: t0.Add(time.Minute)},
		"b": {Listed: 2, FirstUsed: t0, LastUsed: t0},
	}, Sections: map[string]Row{
		"acme::status": {Served: 1, FirstUsed: t0.Add(2 * time.Minute), LastUsed: t0.Add(2 * time.Minute)},
	}, Hours: []Hour{{Start: t0,
		Skills:   map[string]Counts{"a": {2, 1, 2, 7, 2, 1, 2}, "b": {2}},
		Sections: map[string]Counts{"acme::status": {stageServed: 1}},
	}}}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	// Taken again with nothing new, the totals are the same: a record
	// is the replica's totals since it started, not a delta.
	if diff := cmp.Diff(want.Skills, c.Record("r1").Skills); diff != "" {
		t.Errorf("second record (-want +got):\n%s", diff)
	}
}

// Listings with no key are never coalesced: each answer reads its own
// ids (a page of a listing differs from the next page).
func TestCounterListedWithoutKey(t *testing.T) {
	c := NewCounter(nil)
	c.Listed(nil, func() []string { return []string{"a"} })
	c.Listed(nil, func() []string { return []string{"b"} })
	rec := c.Record("r")
	if rec.Skills["a"].Listed != 1 || rec.Skills["b"].Listed != 1 {
		t.Errorf("listed a %d, b %d; want 1 and 1", rec.Skills["a"].Listed, rec.Skills["b"].Listed)
	}
}

// Counting from many goroutines at once loses nothing (run with -race).
func TestCounterConcurrent(t *testing.T) {
	c := NewCounter(nil)
	const workers, each = 8, 1000
	var wg sync.WaitGroup
	countConcurrently(&wg, c, workers, each)
	wg.Wait()
	if r := c.Record("r").Skills["a"]; r.Read != workers*each || r.Listed != workers*each {
		t.Errorf("read %d, listed %d; want %d each", r.Read, r.Listed, workers*each)
	}
}

// countConcurrently starts workers goroutines on wg, each counting each
// reads of "a" and as many listings of it.
func countConcurrently(wg *sync.WaitGroup, c *Counter, workers, each int) {
	for range workers {
		wg.Go(func() {
			for range each {
				c.Read("a")
				c.Listed("v", func() []string { return []string{"a"} })
			}
		})
	}
}

// Two replicas' records add up, id by id, with the earliest first use
// and the latest last use.
func TestMergeAddsReplicas(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	a := Record{Replica: "a", UpdatedAt: t0, Skills: map[string]Row{
		"x": {Read: 2, Rank1: 1, Searched: 1, FirstUsed: t0, LastUsed: t0.Add(time.Hour)},
	}, Sections: map[string]Row{"acme::status": {Served: 1, FirstUsed: t0, LastUsed: t0}}}
	b := Record{Replica: "b", UpdatedAt: t0.Add(time.Minute), Skills: map[string]Row{
		"x": {Fetched: 1, FirstUsed: t0.Add(-time.Hour), LastUsed: t0},
		"y": {Listed: 3, FirstUsed: t0, LastUsed: t0},
	}}
	want := Record{UpdatedAt: t0.Add(time.Minute), Skills: map[string]Row{
		"x": {Read: 2, Fetched: 1, Rank1: 1, Searched: 1, FirstUsed: t0.Add(-time.Hour), LastUsed: t0.Add(time.Hour)},
		"y": {Listed: 3, FirstUsed: t0, LastUsed: t0},
	}, Sections: map[string]Row{"acme::status": {Served: 1, FirstUsed: t0, LastUsed: t0}}}
	if diff := cmp.Diff(want, Merge(a, b)); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
}
