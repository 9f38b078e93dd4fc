package catalog

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// story plays one key's history between the engine and a scope, one step
// at a time in an order the test picks: the worker sends writes; the
// engine applies each sent write whenever it likes, queues its state event
// and owes the worker its answer; other clients write too; events are
// delivered in the order of the writes; answers arrive in any order,
// before or after their events, and some are lost (the call timed out
// after the engine applied it); the key's re-reads run one at a time, as
// applyEvents runs them, each in three steps (generation, engine read,
// apply) that other steps can come between.
type story struct {
	s      *Scope
	key    string
	engine json.RawMessage // the engine's value of key
	n      int             // values written so far
	log    []string        // the steps taken, for a failure's message

	sent    []json.RawMessage // own writes sent, not yet applied by the engine
	answers []answer          // own writes applied, whose answer has not arrived
	events  []json.RawMessage // state events queued, in write order

	queued  bool // a re-read is queued (the catalog's queue holds a key once)
	reading int  // 0: no re-read in progress; 1: generation taken; 2: engine read
	gen     uint64
	read    json.RawMessage
	rereads int
}

type answer struct {
	value json.RawMessage
	lost  bool
}

func newStory() *story {
	st := &story{s: newTestScope(1 << 20), key: "k"}
	st.s.onWrite = func(string) { st.queued = true }
	load(st.s)
	return st
}

func (st *story) next() json.RawMessage {
	st.n++
	return row(st.key, fmt.Sprintf("v%d", st.n))
}

// steps are the moves possible now; with writes false, only those that
// finish what was started.
func (st *story) steps(rnd *rand.Rand, writes bool) []func() {
	var out []func()
	add := func(name string, f func()) { out = append(out, func() { st.log = append(st.log, name); f() }) }
	if writes && len(st.sent)+len(st.answers) < 3 {
		add("send", func() { st.s.beginOwnWrite(st.key); st.sent = append(st.sent, st.next()) })
	}
	if writes {
		add("foreign write", func() { v := st.next(); st.engine = v; st.events = append(st.events, v) })
	}
	if len(st.sent) > 0 {
		add("engine applies", func() {
			i := rnd.IntN(len(st.sent))
			v := st.sent[i]
			st.sent = slices.Delete(st.sent, i, i+1)
			st.engine = v
			st.events = append(st.events, v)
			st.answers = append(st.answers, answer{value: v, lost: rnd.IntN(8) == 0})
		})
		add("send fails", func() {
			st.sent = st.sent[1:]
			st.s.endOwnWrite(st.key, nil, valueSum{})
		})
	}
	if len(st.events) > 0 {
		add("event", func() {
			v := st.events[0]
			st.events = st.events[1:]
			if !st.s.ownEvent(st.key, sumOf(v)) {
				st.queued = true
			}
		})
	}
	if len(st.answers) > 0 {
		add("answer", func() {
			i := rnd.IntN(len(st.answers))
			a := st.answers[i]
			st.answers = slices.Delete(st.answers, i, i+1)
			if a.lost {
				st.s.endOwnWrite(st.key, nil, valueSum{})
				return
			}
			d, _ := decodeRow(a.value)
			st.s.endOwnWrite(st.key, &d, sumOf(a.value))
		})
	}
	switch {
	case st.reading == 0 && st.queued:
		add("re-read: generation", func() { st.queued, st.reading, st.gen = false, 1, st.s.Gen(st.key); st.rereads++ })
	case st.reading == 1:
		add("re-read: engine", func() { st.reading, st.read = 2, st.engine })
	case st.reading == 2:
		add("re-read: apply", func() {
			st.reading = 0
			if err := st.s.ApplyIfUnchanged(st.key, st.read, st.gen); err != nil {
				panic(err)
			}
		})
	}
	return out
}

// play takes up to n random steps, then finishes everything started.
func (st *story) play(rnd *rand.Rand, n int) {
	for range n {
		steps := st.steps(rnd, true)
		steps[rnd.IntN(len(steps))]()
	}
	for steps := st.steps(rnd, false); len(steps) > 0; steps = st.steps(rnd, false) {
		steps[rnd.IntN(len(steps))]()
	}
}

// Whatever the interleaving of own writes, other clients' writes, events,
// answers (lost ones included) and re-reads, once everything has arrived
// the scope holds the engine's value, and it keeps no record of writes.
// A differential check against the engine, over many random stories.
func TestOwnWritesConvergeOnTheEnginesValue(t *testing.T) {
	rnd := rand.New(rand.NewPCG(22, 51))
	for i := range 3000 {
		st := newStory()
		st.play(rnd, 2+rnd.IntN(20))
		e, found, _ := st.s.Get(st.key)
		var want struct{ Skill string }
		if st.engine != nil {
			_ = json.Unmarshal(st.engine, &want)
		}
		if st.engine != nil && (!found || e.Body != want.Skill) || st.engine == nil && found {
			t.Fatalf("story %d: the scope holds %q (found %v), the engine %s\nsteps: %s",
				i, e.Body, found, st.engine, strings.Join(st.log, ", "))
		}
		if len(st.s.own) != 0 {
			t.Fatalf("story %d: own writes left unsettled: %+v\nsteps: %s", i, st.s.own[st.key], strings.Join(st.log, ", "))
		}
	}
}

// Own writes one after the other cost no re-read, whether each answer or
// event arrives first, and however late the events come (here the
// second write goes out before the first one's event has arrived); the
// event of another client's write always costs one.
func TestOwnWritesOneAfterTheOtherAreNotReadAgain(t *testing.T) {
	for _, order := range [][]string{{"answer", "event"}, {"event", "answer"}, {"answer", "late event"}} {
		st := newStory()
		var late []json.RawMessage
		for _, value := range []string{"mine 1", "mine 2", "mine 3"} {
			v := row(st.key, value)
			st.s.beginOwnWrite(st.key)
			for _, step := range order {
				switch step {
				case "answer":
					d, _ := decodeRow(v)
					st.s.endOwnWrite(st.key, &d, sumOf(v))
				case "event":
					if !st.s.ownEvent(st.key, sumOf(v)) {
						t.Fatalf("%v: the event of an own write was not recognised", order)
					}
				case "late event":
					late = append(late, v)
				}
			}
			if e, _, _ := st.s.Get(st.key); e.Body != value {
				t.Fatalf("%v: the scope holds %q, want %q", order, e.Body, value)
			}
		}
		for _, v := range late {
			if !st.s.ownEvent(st.key, sumOf(v)) {
				t.Fatalf("%v: the late event of an own write was not recognised", order)
			}
		}
		if st.queued || len(st.s.own) != 0 {
			t.Errorf("%v: re-read queued %v, unsettled %v; want neither", order, st.queued, st.s.own)
		}
		if st.s.ownEvent(st.key, sumOf(row(st.key, "theirs"))) {
			t.Errorf("%v: another client's event was taken for an own write", order)
		}
	}
}
