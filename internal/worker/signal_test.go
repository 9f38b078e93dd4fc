package worker

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/redistest"
)

// signalWithin bounds, in the signal test, the time from a call's answer
// on one engine to the other engine's subscriber hearing the change: the
// documented bound is a publish, a Redis delivery and a state::get, tens
// of milliseconds here (D75); the margin is for the race detector on a
// loaded 2-core machine.
const signalWithin = 3 * time.Second

// freshnessOf is r's worker's catalog.freshness, as skills::diagnostics
// reports it.
func freshnessOf(ctx context.Context, t *testing.T, r *replica) (f struct {
	Signal             string `json:"signal"`
	ChangesBySignal    uint64 `json:"changes_by_signal"`
	ChangesByReconcile uint64 `json:"changes_by_reconcile"`
	Reconciles         uint64 `json:"reconciles"`
}) {
	t.Helper()
	var rep struct {
		Catalog struct {
			Freshness json.RawMessage `json:"freshness"`
		} `json:"catalog"`
	}
	if err := json.Unmarshal(call(ctx, t, r, "skills::diagnostics", map[string]any{}), &rep); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rep.Catalog.Freshness, &f); err != nil {
		t.Fatalf("engine %s: catalog.freshness %s: %v", r.name, rep.Catalog.Freshness, err)
	}
	return f
}

// waitSignal waits until r's worker reports the signal as want.
func waitSignal(ctx context.Context, t *testing.T, r *replica, want string) {
	t.Helper()
	for {
		if got := freshnessOf(ctx, t, r).Signal; got == want {
			return
		} else if ctx.Err() != nil {
			t.Fatalf("engine %s's worker reports signal %q, want %q", r.name, got, want)
		}
		time.Sleep(10 * time.Millisecond) // polling diagnostics: what they say decides
	}
}

// waitSignalSubscribers waits until Redis has n subscribers of the
// signal's topic: a subscription reaches Redis after the binding.
func waitSignalSubscribers(ctx context.Context, t *testing.T, redis *redistest.Server, n int64) {
	t.Helper()
	rc := goredis.NewClient(&goredis.Options{Addr: redis.Addr})
	defer func() { _ = rc.Close() }()
	for {
		got, err := rc.PubSubNumSub(ctx, catalog.SignalTopic).Result()
		if err == nil && got[catalog.SignalTopic] == n {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("Redis has %v subscribers of %s (%v), want %d", got, catalog.SignalTopic, err, n)
		}
		time.Sleep(10 * time.Millisecond) // polling Redis: its count decides
	}
}

// signalPair starts two local engines keeping state and pubsub in redis,
// a worker on each with the reconcile off (reconcile_ms 0: only the
// signal carries a write across), and returns once both report the
// signal and Redis has both engines' subscriptions.
func signalPair(ctx context.Context, t *testing.T, redis *redistest.Server) [2]*replica {
	t.Helper()
	cfg := config.Default()
	cfg.ReconcileMS = 0
	cfg = config.Resolve(cfg, config.ModeWorker)
	var pair [2]*replica
	for i, name := range []string{"A", "B"} {
		pair[i], _ = startReplica(ctx, t, name, cfg, engine.Options{StateURL: redis.URL, PubSub: redis.URL})
		waitSignal(ctx, t, pair[i], catalog.SignalPubSub)
	}
	waitSignalSubscribers(ctx, t, redis, 2)
	return pair
}

// Two local engines on one real Redis, each with iii's pubsub on that
// Redis, a skills worker on each with the reconcile off (reconcile_ms 0),
// so only the signal can carry a change across (D75): registers,
// unregisters and writes made with state::* alone go through either
// engine at random; after every step the other engine's subscriber hears
// the change within signalWithin, both replicas' skills::list agree with
// Redis, and each subscriber has heard each change exactly once.
func TestTwoEnginesOnOneRedisSignal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pair := signalPair(ctx, t, redistest.NewServer(t, redistest.Options{}))

	st := newSteps(75, 28)
	var took []time.Duration // from a step's answer to the other engine's subscriber hearing it
	for step := range 40 {
		before := len(st.want)
		via, after := st.next(ctx, t, pair, step)
		answered := time.Now()
		other := pair[0]
		if via == other {
			other = pair[1]
		}
		listed := st.listed()
		for _, r := range pair {
			waitHeard(t, r, len(st.want))
			waitListing(t, r, listed, after)
		}
		if len(st.want) > before {
			d := other.heardAt(len(st.want) - 1).Sub(answered)
			if d > signalWithin {
				t.Errorf("after %s, engine %s's subscriber heard it %v after the answer, want within %v", after, other.name, d, signalWithin)
			}
			took = append(took, max(d, 0))
		}
	}
	slices.Sort(took)
	t.Logf("%d changes: the other engine's subscriber heard each %v after the call's answer (p50), %v (p99), %v (max); reconcile off",
		len(took), took[len(took)/2], took[len(took)*99/100], took[len(took)-1])
	for _, r := range pair {
		if diff := cmp.Diff(st.want, r.events()); diff != "" {
			t.Errorf("engine %s's subscriber heard (-want +got):\n%s", r.name, diff)
		}
		f := freshnessOf(ctx, t, r)
		if f.Signal != catalog.SignalPubSub || f.ChangesBySignal == 0 || f.Reconciles != 0 || f.ChangesByReconcile != 0 {
			t.Errorf("engine %s's freshness: %+v; want signal pubsub, changes found by it, and no reconcile", r.name, f)
		}
	}
}

// Without pubsub nothing changes but the diagnostics: they say the
// reconcile alone finds other engines' writes.
func TestNoPubSubNoSignal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := config.Resolve(config.Default(), config.ModeWorker)
	r, _ := startReplica(ctx, t, "plain", cfg, engine.Options{})
	if f := freshnessOf(ctx, t, r); f.Signal != catalog.SignalNone || f.ChangesBySignal != 0 {
		t.Errorf("on an engine without pubsub the freshness is %+v, want signal none", f)
	}
	local, _ := startReplica(ctx, t, "local", cfg, engine.Options{PubSub: engine.PubSubLocal})
	waitSignal(ctx, t, local, catalog.SignalPubSub)
}

// Redis lost and back on its port: without any restart, the engines
// subscribe again and a write through one engine reaches the other's
// subscriber by the signal alone (the reconcile is off).
func TestSignalRecoversAfterRedisOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	redis := redistest.NewServer(t, redistest.Options{AppendOnly: true})
	pair := signalPair(ctx, t, redis)
	call(ctx, t, pair[0], "skills::register", map[string]string{"id": "before", "skill": "# Before\n\nThe outage."})
	waitHeard(t, pair[1], 1)

	redis.Stop()
	redis.Start()
	waitSignalSubscribers(ctx, t, redis, 2)
	call(ctx, t, pair[0], "skills::register", map[string]string{"id": "after", "skill": "# After\n\nThe outage."})
	answered := time.Now()
	waitHeard(t, pair[1], 2)
	if d := pair[1].heardAt(1).Sub(answered); d > signalWithin {
		t.Errorf("after the outage engine B heard the registration %v after its answer, want within %v", d, signalWithin)
	}
	waitListing(t, pair[1], []string{"after", "before"}, "the registration after the outage")
	if diff := cmp.Diff([]string{"register before", "register after"}, pair[1].events()); diff != "" {
		t.Errorf("engine B's subscriber heard (-want +got):\n%s", diff)
	}
}
