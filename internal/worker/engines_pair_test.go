package worker

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// startEnginePair starts two local engines, A and B, on the Redis at
// redisURL, a skills worker with cfg on each, and on each a caller whose
// subscriber records the worker's skills::on-change; it returns once both
// workers have loaded their scopes. Everything stops in t.Cleanup.
func startEnginePair(ctx context.Context, t *testing.T, redisURL string, cfg config.Config) [2]*replica {
	t.Helper()
	var pair [2]*replica
	for i, name := range []string{"A", "B"} {
		r := &replica{name: name, srv: iiitest.NewServerWith(t, engine.Options{StateURL: redisURL})}
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
		// A subscriber is promised the changes after a worker has loaded
		// its scopes, not a replay of what the first load found (D73, 3):
		// the steps begin once both have.
		select {
		case <-w.cat.Settled():
		case <-ctx.Done():
			t.Fatalf("engine %s's worker did not load its scopes", name)
		}
		pair[i] = r
	}

	return pair
}
