package usage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stateStub is a state that holds one value per scope and key and fails
// every write while down.
type stateStub struct {
	mu     sync.Mutex
	down   bool
	writes int
	values map[string]json.RawMessage // scope/key → value
	sets   map[string]int             // scope/key → state::set calls
}

func newStateStub() *stateStub {
	return &stateStub{values: map[string]json.RawMessage{}, sets: map[string]int{}}
}

func (s *stateStub) Call(_ context.Context, fn string, data any) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return nil, errors.New("state unavailable")
	}
	req := data.(map[string]any)
	switch fn {
	case "state::set":
		v, err := json.Marshal(req["value"])
		if err != nil {
			return nil, err
		}
		s.writes++
		s.sets[req["scope"].(string)+"/"+req["key"].(string)]++
		s.values[req["scope"].(string)+"/"+req["key"].(string)] = v
		return json.RawMessage(`{}`), nil
	case "state::delete":
		delete(s.values, req["scope"].(string)+"/"+req["key"].(string))
		return json.RawMessage(`{}`), nil
	}
	return nil, errors.New("unexpected " + fn)
}

func (s *stateStub) setDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

// record is the record stored under scope/key, with how many writes
// were made.
func (s *stateStub) record(t *testing.T, key string) (Record, int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec Record
	if v, ok := s.values[key]; ok {
		if err := json.Unmarshal(v, &rec); err != nil {
			t.Fatal(err)
		}
	}
	return rec, s.writes
}

// A write that fails keeps the counts in memory and the next interval
// writes them; an interval with nothing new writes nothing; Close
// writes what was counted since the last write (docs/decisions.md D84).
func TestFlusherRetriesAndFlushesOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStateStub()
		c := NewCounter(nil)
		f := NewFlusher(FlusherConfig{Counter: c, Caller: st, Scope: "skills_usage", Replica: "r1", Interval: time.Second})
		f.Start()
		t.Cleanup(func() { _ = f.Close(context.Background()) })

		st.setDown(true)
		c.Read("a")
		time.Sleep(time.Second) // one interval, in the bubble's fake time
		synctest.Wait()
		if _, writes := st.record(t, "skills_usage/r1"); writes != 0 {
			t.Fatalf("%d writes while state was down; want 0", writes)
		}
		st.setDown(false)
		time.Sleep(time.Second)
		synctest.Wait()
		rec, writes := st.record(t, "skills_usage/r1")
		if writes != 1 || rec.Replica != "r1" || rec.Skills["a"].Read != 1 {
			t.Fatalf("after state came back: %d writes, record %+v; want 1 write with a read 1", writes, rec)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if _, writes := st.record(t, "skills_usage/r1"); writes != 1 {
			t.Errorf("%d writes with nothing counted since; want still 1", writes)
		}

		c.Fetched("a")
		if err := f.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		rec, writes = st.record(t, "skills_usage/r1")
		if writes != 2 || rec.Skills["a"].Fetched != 1 || rec.Skills["a"].Read != 1 {
			t.Errorf("after Close: %d writes, a = %+v; want 2 writes, read 1 and fetched 1", writes, rec.Skills["a"])
		}
	})
}

// Close before Start writes what was counted and starts nothing; a
// Start after Close starts nothing either.
func TestFlusherCloseWithoutStart(t *testing.T) {
	st := newStateStub()
	c := NewCounter(nil)
	f := NewFlusher(FlusherConfig{Counter: c, Caller: st, Scope: "s", Replica: "r"})
	c.Section("acme::status")
	if err := f.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.Start()
	if rec, writes := st.record(t, "s/r"); writes != 1 || rec.Sections["acme::status"].Served != 1 {
		t.Errorf("%d writes, record %+v; want one write serving acme::status once", writes, rec)
	}
}

// A Close whose write fails says so and leaves the counts to a later
// Flush.
func TestFlusherCloseReportsAFailedWrite(t *testing.T) {
	st := newStateStub()
	st.setDown(true)
	c := NewCounter(nil)
	f := NewFlusher(FlusherConfig{Counter: c, Caller: st, Scope: "s", Replica: "r"})
	c.Read("a")
	if err := f.Close(context.Background()); err == nil {
		t.Fatal("Close with state down returned no error")
	}
	st.setDown(false)
	if err := f.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec, _ := st.record(t, "s/r"); rec.Skills["a"].Read != 1 {
		t.Errorf("record after the retry %+v; want a read once", rec)
	}
}

// stored is every value under scope, as state::list answers them, and
// the number of state::set calls of each scope/key.
func (s *stateStub) stored(scope string) ([]json.RawMessage, map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []json.RawMessage
	for k, v := range s.values {
		if strings.HasPrefix(k, scope+"/") {
			out = append(out, v)
		}
	}
	return out, maps.Clone(s.sets)
}

// Each closed hour is written once, under its own key, and deleted once
// older than the hours kept; the record holds the current hour alone.
// Another replica reading the scope answers since exactly as this one
// does from memory (docs/decisions.md D87).
func TestFlusherWritesEachClosedHourOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStateStub()
		c := NewCounter(nil)
		start := time.Now().UTC()
		f := NewFlusher(FlusherConfig{Counter: c, Caller: st, Scope: "u", Replica: "r1", Interval: time.Minute})
		f.Start()
		t.Cleanup(func() { _ = f.Close(context.Background()) })
		const hours = 50
		for h := range hours + 1 {
			c.Read("a")
			if h%10 == 0 {
				c.Section("acme::status")
			}
			if h < hours {
				time.Sleep(time.Hour)
			}
		}
		time.Sleep(time.Minute)
		synctest.Wait()

		values, sets := st.stored("u")
		if len(values) != HoursKept { // the record and the 47 closed hours kept
			t.Errorf("%d values stored; want %d", len(values), HoursKept)
		}
		for h := hours - HoursKept + 1; h < hours; h++ {
			key := fmt.Sprintf("u/%s", hourKey("r1", hourOfTime(start)+int64(h)))
			if sets[key] != 1 {
				t.Errorf("hour %d written %d times; want once", h, sets[key])
			}
		}
		rec, _ := st.record(t, "u/r1")
		if len(rec.Hours) != 1 || !rec.Hours[0].Start.Equal(start.Add(hours*time.Hour)) {
			t.Errorf("the record's hours %v; want the current one alone", rec.Hours)
		}

		other := NewReporter(ReporterConfig{Counter: NewCounter(nil), Replica: "r2",
			Stored: func(context.Context) ([]json.RawMessage, error) { v, _ := st.stored("u"); return v, nil },
			Served: func(context.Context) ([]string, error) { return []string{"a"}, nil }})
		self := reporter(c, nil, nil, "a")
		for _, since := range []time.Time{start, start.Add(45*time.Hour + time.Minute), start.Add(hours * time.Hour)} {
			want, _ := self.Usage(t.Context(), since, "")
			got, _ := other.Usage(t.Context(), since, "")
			if diff := cmp.Diff(want.Skills, got.Skills); diff != "" || !cmp.Equal(want.Sections, got.Sections) || want.CountedSince != got.CountedSince {
				t.Errorf("since %v, from state (-memory +state):\n%s\nsections %v / %v", since, diff, want.Sections, got.Sections)
			}
		}
		if got, _ := other.Usage(t.Context(), start.Add(45*time.Hour), ""); got.Skills["a"].Read != 6 || got.Sections["acme::status"].Served != 1 {
			t.Errorf("since hour 45 from state: a %+v, sections %v; want read 6 and acme::status served once", got.Skills["a"], got.Sections)
		}
	})
}

// A closed hour wins over the same hour in a record written while it
// was current; a record written before D87 (no hours) adds to the
// totals and nothing to since.
func TestStoredClosedHourWins(t *testing.T) {
	h := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	clk := newClock() // 07:00
	old := Record{Replica: "old", Skills: map[string]Row{"a": {Read: 4, FirstUsed: h, LastUsed: h}}}
	x := Record{Replica: "x", Skills: map[string]Row{"a": {Read: 3, FirstUsed: h, LastUsed: h}},
		Hours: []Hour{{Start: h, Skills: map[string]Counts{"a": {stageRead: 1}}}}}
	values := []json.RawMessage{}
	for _, v := range []any{old, x, ClosedHour{Of: "x", Hour: Hour{Start: h, Skills: map[string]Counts{"a": {stageRead: 3}}}}, "not a record"} {
		b, _ := json.Marshal(v)
		values = append(values, b)
	}
	r := NewReporter(ReporterConfig{Counter: NewCounter(clk.now), Replica: "me",
		Stored: func(context.Context) ([]json.RawMessage, error) { return values, nil },
		Served: func(context.Context) ([]string, error) { return nil, nil }})
	rep, _ := r.Usage(t.Context(), h, "")
	if rep.Skills["a"].Read != 3 || rep.Replicas != 3 {
		t.Errorf("since %v: a read %d from %d replicas; want 3 from 3", h, rep.Skills["a"].Read, rep.Replicas)
	}
	if rep, _ = r.Usage(t.Context(), time.Time{}, ""); rep.Skills["a"].Read != 7 {
		t.Errorf("all time: a read %d; want 7", rep.Skills["a"].Read)
	}
}

// Once an hour a flush deletes the closed hours of the other replicas,
// a stopped one's too, older than the hours kept, and nothing else
// (docs/decisions.md D87).
func TestFlusherSweepsOldHoursOfStoppedReplicas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStateStub()
		start := time.Now().UTC()
		h0 := hourOfTime(start)
		gone := Record{Replica: "gone", Skills: map[string]Row{"a": {Read: 6, FirstUsed: start, LastUsed: start.Add(5 * time.Hour)}}}
		_, _ = st.Call(t.Context(), "state::set", map[string]any{"scope": "u", "key": "gone", "value": gone})
		for h := range int64(6) {
			_, _ = st.Call(t.Context(), "state::set", map[string]any{"scope": "u", "key": hourKey("gone", h0+h),
				"value": ClosedHour{Of: "gone", Hour: Hour{Start: hourStart(h0 + h), Skills: map[string]Counts{"a": {stageRead: 1}}}}})
		}
		c := NewCounter(nil)
		f := NewFlusher(FlusherConfig{Counter: c, Caller: st, Scope: "u", Replica: "r1", Interval: time.Minute,
			Stored: func(context.Context) ([]json.RawMessage, error) { v, _ := st.stored("u"); return v, nil }})
		f.Start()
		t.Cleanup(func() { _ = f.Close(context.Background()) })
		keys := func() []string {
			st.mu.Lock()
			defer st.mu.Unlock()
			return slices.Sorted(maps.Keys(st.values))
		}
		c.Read("a")
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := len(keys()); got != 8 {
			t.Fatalf("after the first flush %d keys: %v; want gone's record, its 6 hours and r1", got, keys())
		}
		time.Sleep(50*time.Hour - time.Minute)
		c.Read("a")
		time.Sleep(time.Minute)
		synctest.Wait()
		want := []string{"u/gone", "u/" + hourKey("gone", h0+3), "u/" + hourKey("gone", h0+4), "u/" + hourKey("gone", h0+5), "u/r1"}
		if diff := cmp.Diff(want, keys()); diff != "" {
			t.Errorf("keys at hour 50 (-want +got):\n%s", diff)
		}
	})
}
