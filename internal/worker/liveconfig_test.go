package worker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// liveWorld is a worker serving three skill files from its config file,
// on engine srv, and a caller worker to drive it. before, when set, runs
// once the caller is ready and before the worker connects.
type liveWorld struct {
	srv    *engine.Engine
	w      *Worker
	cfg    config.Config
	caller *iii.Client
	ctx    context.Context
}

func newLiveWorld(t *testing.T, opts engine.Options, before func(w *liveWorld)) *liveWorld {
	t.Helper()
	lw := &liveWorld{srv: iiitest.NewServerWith(t, opts)}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	lw.ctx = ctx
	lw.caller = iii.New(iii.Options{URL: lw.srv.URL(), Name: "caller"})
	lw.caller.Start()
	t.Cleanup(func() { lw.caller.Close() }) //nolint:errcheck // test cleanup
	if err := lw.caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(lw) // before the worker connects
	}

	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		write(t, filepath.Join(dir, "docs", id+".md"), "# "+strings.ToUpper(id)+"\n")
	}
	cfgPath := filepath.Join(dir, "config.yaml")
	write(t, cfgPath, "skills: [docs/*.md]\n")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	lw.cfg = config.Resolve(cfg, config.ModeWorker)
	lw.w, err = New(lw.cfg, Options{URL: lw.srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- lw.w.Run(context.Background()) }()
	t.Cleanup(func() {
		lw.w.Close() //nolint:errcheck // Close waits for Run
		if err := <-ran; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	if err := lw.srv.WaitFunction(ctx, "skills::resources-list"); err != nil {
		t.Fatal(err)
	}
	return lw
}

// waitLive waits until cond holds of the live configuration's state.
func (lw *liveWorld) waitLive(t *testing.T, what string, cond func(checked string, r *diagnostics.LiveConfig) bool) {
	t.Helper()
	l := lw.w.live
	for {
		l.mu.Lock()
		ok := cond(l.checked, l.report)
		ch := l.changed
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-lw.ctx.Done():
			t.Fatalf("waiting for %s: %v", what, lw.ctx.Err())
		}
	}
}

// configCall calls a configuration function in the default namespace.
func (lw *liveWorld) configCall(fn string, data any) (json.RawMessage, error) {
	return lw.caller.Invoke(lw.ctx, iii.Invocation{FunctionID: fn, Data: data, Namespace: "default"})
}

// set stores the file's config with changes as the entry's value.
func (lw *liveWorld) set(t *testing.T, id string, changes map[string]any) error {
	t.Helper()
	value := config.Value(lw.cfg)
	for k, v := range changes {
		if group, leaf, ok := strings.Cut(k, "."); ok {
			value[group].(map[string]any)[leaf] = v
			continue
		}
		value[k] = v
	}
	_, err := lw.configCall("configuration::set", map[string]any{"id": id, "value": value})
	return err
}

// resources lists skills::resources-list's first page: its uris and
// whether a cursor follows.
func (lw *liveWorld) resources(t *testing.T) (uris []string, more bool) {
	t.Helper()
	res, err := lw.caller.Call(lw.ctx, "skills::resources-list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Resources {
		uris = append(uris, r.URI)
	}
	return uris, out.NextCursor != ""
}

// diagnosed is skills::diagnostics' live_config, nil when absent.
func (lw *liveWorld) diagnosed(t *testing.T) *diagnostics.LiveConfig {
	t.Helper()
	res, err := lw.caller.Call(lw.ctx, "skills::diagnostics", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var rep diagnostics.Report
	if err := json.Unmarshal(res, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Live
}

// Where the engine has a configuration worker, the worker ensures its
// entry with the config it loaded, then follows it: a page_size set there
// changes the next resources-list page; a value the worker refuses
// leaves the running config as it was and says why; a key that needs a
// restart is reported in skills::diagnostics.
func TestLiveConfigFollowsTheEntry(t *testing.T) {
	lw := newLiveWorld(t, engine.Options{Configuration: true}, nil)
	lw.waitLive(t, "the entry followed", func(_ string, r *diagnostics.LiveConfig) bool { return r != nil })

	stored, err := lw.configCall("configuration::get", map[string]any{"id": "skills"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Value any }
	if err := json.Unmarshal(stored, &got); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(config.Value(lw.cfg))
	var wantValue any
	_ = json.Unmarshal(want, &wantValue)
	if diff := cmp.Diff(wantValue, got.Value); diff != "" {
		t.Errorf("the entry's initial value is not the file's config (-want +got):\n%s", diff)
	}
	if uris, more := lw.resources(t); len(uris) != 4 || more {
		t.Fatalf("resources-list before any change = %v (more: %t), want the index and 3 skills at once", uris, more)
	}

	if err := lw.set(t, "skills", map[string]any{"page_size": 2}); err != nil {
		t.Fatal(err)
	}
	lw.waitLive(t, "page_size applied", func(_ string, r *diagnostics.LiveConfig) bool { return slices.Contains(r.Applied, "page_size") })
	page, more := lw.resources(t)
	if len(page) != 2 || !more {
		t.Errorf("resources-list after page_size 2 = %v (more: %t), want 2 entries and a cursor", page, more)
	}

	// The engine refuses what the schema refuses.
	if err := lw.set(t, "skills", map[string]any{"page_size": -1}); !isCode(err, "SCHEMA_INVALID") {
		t.Errorf("set of page_size -1 = %v, want SCHEMA_INVALID", err)
	}
	// The worker refuses what only Validate refuses.
	if err := lw.set(t, "skills", map[string]any{"page_size": 3, "search.embedder": "state::set"}); err != nil {
		t.Fatal(err)
	}
	lw.waitLive(t, "the value refused", func(_ string, r *diagnostics.LiveConfig) bool { return r.Refused != "" })
	if again, _ := lw.resources(t); !slices.Equal(again, page) {
		t.Errorf("resources-list after a refused value = %v, want %v as before", again, page)
	}
	if d := lw.diagnosed(t); d == nil || !strings.Contains(d.Refused, "`search.embedder`") || !strings.Contains(d.Refused, `got "state::set"`) {
		t.Errorf("diagnostics live_config = %+v, want the refusal naming search.embedder and its value", d)
	}

	if err := lw.set(t, "skills", map[string]any{"page_size": 2, "max_frame_bytes": 2 << 20}); err != nil {
		t.Fatal(err)
	}
	lw.waitLive(t, "max_frame_bytes reported", func(_ string, r *diagnostics.LiveConfig) bool { return len(r.RestartNeeded) > 0 })
	want2 := &diagnostics.LiveConfig{Entry: "skills", Applied: []string{"page_size"}, RestartNeeded: []string{"max_frame_bytes"}}
	if diff := cmp.Diff(want2, lw.diagnosed(t)); diff != "" {
		t.Errorf("diagnostics live_config (-want +got):\n%s", diff)
	}
}

// An entry that holds a value before the worker starts (an operator's or
// Compose's) is kept, and its value is in force; the entry's id is
// $III_CONFIG_NAME when set.
func TestLiveConfigKeepsAStoredValue(t *testing.T) {
	t.Setenv(configNameEnv, " team-skills ")
	lw := newLiveWorld(t, engine.Options{Configuration: true}, func(lw *liveWorld) {
		if _, err := lw.configCall("configuration::register", map[string]any{"id": "team-skills", "name": "override",
			"description": "", "schema": map[string]any{}, "initial_value": map[string]any{"skills": []string{"docs/*.md"}, "page_size": 1}}); err != nil {
			t.Fatal(err)
		}
	})
	lw.waitLive(t, "page_size applied", func(_ string, r *diagnostics.LiveConfig) bool {
		return r != nil && slices.Contains(r.Applied, "page_size")
	})
	stored, err := lw.configCall("configuration::get", map[string]any{"id": "team-skills"})
	if err != nil || !strings.Contains(string(stored), `"page_size":1`) {
		t.Errorf("the entry after the worker ensured it = %s, %v; want the stored page_size 1 kept", stored, err)
	}
	if page, more := lw.resources(t); len(page) != 1 || !more {
		t.Errorf("resources-list = %v (more: %t), want the stored page_size 1", page, more)
	}
	if d := lw.diagnosed(t); d == nil || d.Entry != "team-skills" {
		t.Errorf("diagnostics live_config = %+v, want entry team-skills", d)
	}

	// Someone registers the entry again with a schema that takes anything,
	// then stores null: no value is no config, and the running one stays.
	if _, err := lw.configCall("configuration::register", map[string]any{"id": "team-skills", "name": "override",
		"description": "", "schema": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := lw.configCall("configuration::set", map[string]any{"id": "team-skills", "value": nil}); err != nil {
		t.Fatal(err)
	}
	lw.waitLive(t, "null refused", func(_ string, r *diagnostics.LiveConfig) bool { return strings.Contains(r.Refused, "holds no value") })
	if page, more := lw.resources(t); len(page) != 1 || !more {
		t.Errorf("resources-list after a null value = %v (more: %t), want page_size 1 still", page, more)
	}
}

// Without a configuration worker nothing changes: no entry, no binding,
// no internal function, no live_config in skills::diagnostics.
func TestLiveConfigWithoutAConfigurationWorker(t *testing.T) {
	lw := newLiveWorld(t, engine.Options{}, nil)
	lw.waitLive(t, "the engine examined", func(checked string, _ *diagnostics.LiveConfig) bool { return checked != "" })
	if d := lw.diagnosed(t); d != nil {
		t.Errorf("diagnostics live_config = %+v, want none", d)
	}
	res, err := lw.caller.Call(lw.ctx, "engine::functions::list", map[string]any{"include_internal": true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res), "skills::config::") {
		t.Errorf("the worker registered its configuration handler on an engine without a configuration worker: %s", res)
	}
	if uris, more := lw.resources(t); len(uris) != 4 || more {
		t.Errorf("resources-list = %v (more: %t), want everything at once", uris, more)
	}
}

// An engine whose configuration worker has no configuration::ensure (iii
// before 0.24): the worker registers its entry, with the file's config as
// the value only where none is stored.
func TestLiveConfigFallsBackToRegister(t *testing.T) {
	for _, c := range []struct {
		name        string
		stored      any // nil: no entry
		wantInitial bool
		wantPage    int
	}{
		{"no entry", nil, true, 0},
		{"a stored value", map[string]any{"skills": []string{"docs/*.md"}, "page_size": 1}, false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			stored := c.stored
			registered := make(chan map[string]any, 1)
			lw := newLiveWorld(t, engine.Options{}, func(lw *liveWorld) {
				lw.caller.RegisterFunction(iii.Function{ID: "configuration::get", Handler: func(context.Context, iii.Request) (any, error) {
					mu.Lock()
					defer mu.Unlock()
					if stored == nil {
						return nil, &iii.Error{Code: "NOT_FOUND", Message: "configuration 'skills' not found"}
					}
					return map[string]any{"id": "skills", "value": stored}, nil
				}})
				lw.caller.RegisterFunction(iii.Function{ID: "configuration::register", Handler: func(_ context.Context, req iii.Request) (any, error) {
					var in map[string]any
					if err := json.Unmarshal(req.Data, &in); err != nil {
						return nil, err
					}
					mu.Lock()
					if v, ok := in["initial_value"]; ok {
						stored = v
					}
					mu.Unlock()
					registered <- in
					return in, nil
				}})
				for _, fn := range []string{"configuration::get", "configuration::register"} {
					if err := lw.srv.WaitFunction(lw.ctx, fn); err != nil {
						t.Fatal(err)
					}
				}
			})
			var in map[string]any
			select {
			case in = <-registered:
			case <-lw.ctx.Done():
				t.Fatal("the worker did not call configuration::register")
			}
			if _, has := in["initial_value"]; has != c.wantInitial || in["schema"] == nil || in["name"] != entryName {
				t.Errorf("configuration::register payload = %v, want a schema and initial_value %t", in, c.wantInitial)
			}
			lw.waitLive(t, "the entry read", func(checked string, r *diagnostics.LiveConfig) bool { return r != nil && checked != "" })
			if c.wantPage > 0 {
				lw.waitLive(t, "page_size applied", func(_ string, r *diagnostics.LiveConfig) bool { return slices.Contains(r.Applied, "page_size") })
			}
			if got := lw.w.reg.Budgets().PageSize; got != c.wantPage {
				t.Errorf("page_size in force = %d, want %d", got, c.wantPage)
			}
		})
	}
}
