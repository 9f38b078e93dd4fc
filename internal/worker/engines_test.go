package worker

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/redistest"
)

// reconcileMS is the engines test's reconcile_ms: its scope is tiny, so
// a pass takes milliseconds and the bound is the interval (D73).
const reconcileMS = 200

// convergeWithin bounds the wait for both replicas to agree after a step:
// the documented bound (reconcile_ms + a pass + a state::get, a few
// hundred milliseconds here) with room for a loaded machine and the race
// detector (a pass slowed to d waits 10 × d before the next).
const convergeWithin = 5 * time.Second

// Two local engines on one Redis, a skills worker on each (D71, D73):
// registers, unregisters and writes made with state::* alone go through
// either engine at random; after every step both replicas' skills::list
// agrees with Redis within the bound, and each replica's subscriber has
// heard each change exactly once, whichever engine it went through.
func TestTwoEnginesOnOneRedisConverge(t *testing.T) {
	redis := redistest.NewServer(t, redistest.Options{})
	cfg := config.Default()
	cfg.ReconcileMS = reconcileMS
	cfg = config.Resolve(cfg, config.ModeWorker)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var pair [2]*replica
	for i, name := range []string{"A", "B"} {
		pair[i], _ = startReplica(ctx, t, name, cfg, engine.Options{StateURL: redis.URL})
	}

	st := newSteps(28, 73)
	var took []time.Duration // from a step's answer to both replicas agreeing
	for step := range 24 {
		_, after := st.next(ctx, t, pair, step)
		ids := st.listed()
		start := time.Now()
		for _, r := range pair {
			waitListing(t, r, ids, after)
			waitHeard(t, r, len(st.want))
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("both replicas agreed and heard each change %v after the call (p50), %v (p99), %v (max), reconcile_ms %d",
		took[len(took)/2], took[len(took)*99/100], took[len(took)-1], reconcileMS)
	// Quiet for several passes: nothing more is heard, on either side.
	for _, r := range pair {
		waitPasses(ctx, t, r, 3)
	}
	for _, r := range pair {
		if diff := cmp.Diff(st.want, r.events()); diff != "" {
			t.Errorf("engine %s's subscriber heard (-want +got):\n%s", r.name, diff)
		}
	}
	// The fingerprint a pass compares is the hash of a value's bytes: on
	// Redis, state::list and state::get must give the same bytes, or
	// every pass would read every row again (D73).
	var list []json.RawMessage
	if err := json.Unmarshal(call(ctx, t, pair[0], "state::list", map[string]string{"scope": "skills"}), &list); err != nil {
		t.Fatal(err)
	}
	for _, v := range list {
		var row struct{ ID string }
		_ = json.Unmarshal(v, &row)
		for _, r := range pair {
			if got := call(ctx, t, r, "state::get", map[string]string{"scope": "skills", "key": row.ID}); string(got) != string(v) {
				t.Errorf("engine %s: state::get of %s is %s, state::list has %s", r.name, row.ID, got, v)
			}
		}
	}
}

func call(ctx context.Context, t *testing.T, r *replica, fn string, data any) json.RawMessage {
	t.Helper()
	res, err := r.caller.Call(ctx, fn, data)
	if err != nil {
		t.Fatalf("%s through %s: %v", fn, r.name, err)
	}
	return res
}

// waitListing waits until r's skills::list lists exactly ids, for at most
// convergeWithin.
func waitListing(t *testing.T, r *replica, ids []string, after string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), convergeWithin)
	defer cancel()
	var got []string
	for {
		res, err := r.caller.Call(ctx, "skills::list", map[string]any{})
		if err == nil {
			var list struct{ Skills []struct{ ID string } }
			_ = json.Unmarshal(res, &list)
			got = got[:0]
			for _, s := range list.Skills {
				got = append(got, s.ID)
			}
			if slices.Equal(got, ids) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("after %s, engine %s's skills::list is %v within %v, want %v", after, r.name, got, convergeWithin, ids)
		case <-time.After(10 * time.Millisecond): // polling a call: the test's result is the listing it returns
		}
	}
}

// waitHeard waits until r's subscriber has heard n events.
func waitHeard(t *testing.T, r *replica, n int) {
	t.Helper()
	deadline := time.Now().Add(convergeWithin)
	for len(r.events()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("engine %s's subscriber heard %v within %v, want %d events", r.name, r.events(), convergeWithin, n)
		}
		time.Sleep(5 * time.Millisecond) // polling the record: the count decides, not the sleep
	}
}

// waitPasses waits until r's worker has finished n more reconcile passes
// (skills::diagnostics' catalog.freshness.reconciles).
func waitPasses(ctx context.Context, t *testing.T, r *replica, n uint64) {
	t.Helper()
	passes := func() uint64 {
		var rep struct {
			Catalog struct {
				Freshness struct{ Reconciles uint64 }
			}
		}
		_ = json.Unmarshal(call(ctx, t, r, "skills::diagnostics", map[string]any{}), &rep)
		return rep.Catalog.Freshness.Reconciles
	}
	target := passes() + n
	for passes() < target {
		if ctx.Err() != nil {
			t.Fatalf("engine %s's worker made fewer than %d passes", r.name, n)
		}
		time.Sleep(reconcileMS * time.Millisecond / 4)
	}
}
