package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// replica is one engine of a pair, its skills worker, and a client that
// calls through it and records the worker's skills::on-change.
type replica struct {
	name   string
	srv    *engine.Engine
	caller *iii.Client

	mu    sync.Mutex
	heard []string    // on-change payloads, compacted, in arrival order
	at    []time.Time // when each arrived
}

func (r *replica) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.heard)
}

// heardAt is when the n-th event (from 0) arrived.
func (r *replica) heardAt(n int) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.at[n]
}

// startReplica starts a local engine with opts, a skills worker for cfg
// on it and a caller subscribed to its skills::on-change, all stopped in
// t.Cleanup, and returns once the worker has loaded its scopes: a
// subscriber is promised the changes after that, not a replay of what the
// first load found (D73, 3).
func startReplica(ctx context.Context, t *testing.T, name string, cfg config.Config, opts engine.Options) (*replica, *Worker) {
	t.Helper()
	r := &replica{name: name, srv: iiitest.NewServerWith(t, opts)}
	w, err := New(cfg, Options{URL: r.srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = w.Run(context.Background()) }()
	t.Cleanup(func() { _ = w.Close() })
	r.caller = iii.New(iii.Options{URL: r.srv.URL(), Name: "caller-" + name})
	r.caller.RegisterFunction(iii.Function{ID: "test::heard", Handler: func(_ context.Context, req iii.Request) (any, error) {
		var v struct{ Op, ID string }
		_ = json.Unmarshal(req.Data, &v)
		r.mu.Lock()
		r.heard = append(r.heard, v.Op+" "+v.ID)
		r.at = append(r.at, time.Now())
		r.mu.Unlock()
		return nil, nil
	}})
	r.caller.RegisterTrigger(iii.Trigger{ID: "heard-" + name, Type: contract.SkillsOnChange, FunctionID: "test::heard"})
	r.caller.Start()
	t.Cleanup(func() { _ = r.caller.Close() })
	if err := r.srv.WaitFunction(ctx, "skills::register"); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitBinding(ctx, "heard-"+name); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.cat.Settled():
	case <-ctx.Done():
		t.Fatalf("engine %s's worker did not load its scopes", name)
	}
	return r, w
}

// steps makes the random writes of a two-engine test: registers,
// unregisters, and rows written and deleted with state::* alone, of a
// few ids, each through either engine; it keeps what the store holds (by
// the calls' answers) and the changes each subscriber must hear once.
type steps struct {
	rng    *rand.Rand
	ids    []string
	stored map[string]bool
	want   []string // "register id" or "unregister id", in order
}

func newSteps(seed1, seed2 uint64) *steps {
	return &steps{rng: rand.New(rand.NewPCG(seed1, seed2)), ids: []string{"alpha", "beta", "gamma", "team/delta"},
		stored: map[string]bool{}}
}

// next makes step n through a replica of pair chosen at random and
// returns it and the step's description.
func (s *steps) next(ctx context.Context, t *testing.T, pair [2]*replica, n int) (*replica, string) {
	t.Helper()
	via := pair[s.rng.IntN(2)]
	id := s.ids[s.rng.IntN(len(s.ids))]
	var what string
	switch op := s.rng.IntN(4); {
	case op == 0 || op == 1 && !s.stored[id]:
		what = "skills::register"
		call(ctx, t, via, what, map[string]string{"id": id, "skill": fmt.Sprintf("# %s\n\nStep %d through %s.", id, n, via.name)})
		s.stored[id] = true
		s.want = append(s.want, "register "+id)
	case op == 1:
		what = "skills::unregister"
		call(ctx, t, via, what, map[string]string{"id": id})
		s.stored[id] = false
		s.want = append(s.want, "unregister "+id)
	case op == 2:
		what = "state::set"
		row := map[string]string{"id": id, "skill": fmt.Sprintf("# %s\n\nWritten with state::set at step %d.", id, n), "registered_at": fmt.Sprintf("2026-12-02T00:00:%02d.000000000+00:00", n%60)}
		call(ctx, t, via, what, map[string]any{"scope": "skills", "key": id, "value": row})
		s.stored[id] = true
		s.want = append(s.want, "register "+id)
	default:
		what = "state::delete"
		call(ctx, t, via, what, map[string]string{"scope": "skills", "key": id})
		if s.stored[id] {
			s.want = append(s.want, "unregister "+id)
		}
		s.stored[id] = false
	}
	return via, fmt.Sprintf("step %d (%s of %s through %s)", n, what, id, via.name)
}

// listed is the ids the store holds, sorted, as skills::list lists them.
func (s *steps) listed() []string {
	var ids []string
	for id, ok := range s.stored {
		if ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}
