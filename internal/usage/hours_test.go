package usage

import (
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sleepUntil sleeps, in a synctest bubble's fake time, until t.
func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// since counts the uses of the UTC hours from the one since falls in,
// merged over replicas, with each id's first and last use of all time;
// never_opened looks at the same hours (docs/decisions.md D87).
func TestSinceCountsTheHoursFromIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		day := time.Now().UTC().Truncate(24 * time.Hour) // the bubble starts at midnight
		at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
		c := NewCounter(nil)
		sleepUntil(at(0, 10))
		c.Read("a")
		c.Read("a")
		c.Searched("a", 1)
		c.Listed("v1", func() []string { return []string{"a", "b"} })
		sleepUntil(at(1, 20))
		c.Read("a")
		c.Fetched("b")
		c.Section("acme::status")
		sleepUntil(at(3, 5))
		c.Read("a")
		other := Record{Replica: "other", UpdatedAt: at(1, 0), Skills: map[string]Row{
			"a": {Read: 5, FirstUsed: at(0, 0), LastUsed: at(1, 0)},
		}, Hours: []Hour{{Start: at(1, 0), Skills: map[string]Counts{"a": {stageRead: 5}}}}}
		r := reporter(c, []Record{other}, nil, "a", "b", "c")

		rep, err := r.Usage(t.Context(), at(1, 30), "")
		if err != nil {
			t.Fatal(err)
		}
		want := Report{Skills: map[string]Row{
			"a": {Read: 7, FirstUsed: at(0, 0), LastUsed: at(3, 5)},
			"b": {Fetched: 1, FirstUsed: at(0, 10), LastUsed: at(1, 20)},
		}, Sections: map[string]Row{
			"acme::status": {Served: 1, FirstUsed: at(1, 20), LastUsed: at(1, 20)},
		}, NeverOpened: []string{"c"}, Replicas: 2, CountedSince: "2000-01-01T01:00:00.000000000+00:00"}
		if diff := cmp.Diff(want, rep); diff != "" {
			t.Errorf("since 01:30 (-want +got):\n%s", diff)
		}

		rep, _ = r.Usage(t.Context(), at(3, 0), "")
		want = Report{Skills: map[string]Row{"a": {Read: 1, FirstUsed: at(0, 0), LastUsed: at(3, 5)}},
			Sections: map[string]Row{}, NeverOpened: []string{"b", "c"}, Replicas: 2, CountedSince: "2000-01-01T03:00:00.000000000+00:00"}
		if diff := cmp.Diff(want, rep); diff != "" {
			t.Errorf("since 03:00 (-want +got):\n%s", diff)
		}

		rep, _ = r.Usage(t.Context(), time.Time{}, "")
		if got := rep.Skills["a"]; got.Read != 9 || got.Searched != 1 || got.Listed != 1 || rep.CountedSince != "" {
			t.Errorf("all time: a = %+v, counted_since %q; want read 9, searched 1, listed 1, no counted_since", got, rep.CountedSince)
		}
	})
}

// A record keeps HoursKept hours; since further back counts from the
// oldest hour kept and says so, while the all-time totals keep every use.
func TestSinceIsBoundedByTheHoursKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().UTC()
		c := NewCounter(nil)
		for range 60 {
			c.Read("a")
			time.Sleep(time.Hour)
		}
		c.Read("a") // hour 60
		rec := c.Record("me")
		if len(rec.Hours) != HoursKept {
			t.Fatalf("%d hours kept; want %d", len(rec.Hours), HoursKept)
		}
		oldest := start.Add((60 - HoursKept + 1) * time.Hour)
		if !rec.Hours[0].Start.Equal(oldest) || rec.Skills["a"].Read != 61 {
			t.Errorf("oldest hour %v, a read %d; want %v and 61", rec.Hours[0].Start, rec.Skills["a"].Read, oldest)
		}
		rep, _ := reporter(c, nil, nil, "a").Usage(t.Context(), start, "")
		if got, want := rep.Skills["a"].Read, uint64(HoursKept); got != want || rep.CountedSince != stamp(oldest) {
			t.Errorf("since the start: read %d counted since %s; want %d since %s", got, rep.CountedSince, want, stamp(oldest))
		}
	})
}

// Uses made while the hour turns, from many goroutines, are each in
// exactly one hour: the hours add up to the totals (run with -race).
func TestHoursAddUpToTheTotals(t *testing.T) {
	clk := newClock()
	c := NewCounter(clk.now)
	const workers, each = 4, 2000
	var wg sync.WaitGroup
	countConcurrently(&wg, c, workers, each)
	wg.Go(func() {
		for range 20 {
			clk.advance(time.Hour)
			c.Record("me")
		}
	})
	wg.Wait()
	rec := c.Record("me")
	var sum Counts
	for _, h := range rec.Hours {
		sum.add(h.Skills["a"])
	}
	if sum[stageRead] != workers*each || sum[stageListed] != workers*each || rec.Skills["a"].Read != workers*each {
		t.Errorf("hours add up to read %d, listed %d; total read %d; want %d each", sum[stageRead], sum[stageListed], rec.Skills["a"].Read, workers*each)
	}
}

// A record's hours are stored compactly (no trailing zero counts, the
// start in the registry's layout) and read back as they were.
func TestHoursRoundTrip(t *testing.T) {
	start := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	rec := Record{Replica: "r", UpdatedAt: start, Skills: map[string]Row{}, Sections: map[string]Row{}, Hours: []Hour{{
		Start:    start,
		Skills:   map[string]Counts{"a": {3}, "b": {0, 0, 0, 0, 0, 1}},
		Sections: map[string]Counts{"acme::status": {stageServed: 2}},
	}}}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"replica":"r","skills":{},"sections":{},"hours":[{"skills":{"a":[3],"b":[0,0,0,0,0,1]},"sections":{"acme::status":[0,0,0,0,0,0,0,2]},"start":"2026-12-02T07:00:00.000000000+00:00"}],"updated_at":"2026-12-02T07:00:00.000000000+00:00"}`
	if string(b) != want {
		t.Errorf("record = %s\nwant     %s", b, want)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec, back); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

// A since far in the future counts nothing from its hour; one far in
// the past counts from the oldest hour kept. Neither overflows.
func TestSinceFarAway(t *testing.T) {
	clk := newClock()
	c := NewCounter(clk.now)
	c.Read("a")
	r := reporter(c, nil, nil, "a")
	for _, tc := range []struct {
		since time.Time
		want  string
		read  uint64
	}{
		{time.Date(2999, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600)), "2998-12-31T23:00:00.000000000+00:00", 0},
		{time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), stamp(clk.now().Add(-(HoursKept - 1) * time.Hour)), 1},
	} {
		rep, err := r.Usage(t.Context(), tc.since, "")
		if err != nil {
			t.Fatal(err)
		}
		if rep.CountedSince != tc.want || rep.Skills["a"].Read != tc.read {
			t.Errorf("since %v: counted since %s, a read %d; want %s and %d", tc.since, rep.CountedSince, rep.Skills["a"].Read, tc.want, tc.read)
		}
	}
}
