package usage

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// stateStub is a state that holds one value per scope and key and fails
// every write while down.
type stateStub struct {
	mu     sync.Mutex
	down   bool
	writes int
	values map[string]json.RawMessage // scope/key → value
}

func newStateStub() *stateStub { return &stateStub{values: map[string]json.RawMessage{}} }

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
		s.values[req["scope"].(string)+"/"+req["key"].(string)] = v
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
