package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/tools"
)

// waitTimeout bounds every wait on an event in these tests.
const waitTimeout = 10 * time.Second

const helloSkill = "---\nname: hello\nversion: 1.0.0\ndescription: Says hello.\n---\n# Hello\n\n" +
	"### greet\n\nSay hello.\n\n#### Command\n\n```\necho hello\n```\n"

// A worker serves its config on the engine; a file added under a glob is
// announced on skills::on-change with source fs and an approved tool
// skill added under a root becomes a function, both through the fan-out
// goroutine; Close makes Run return nil and leaves no goroutine of the
// worker or its parts behind.
func TestWorkerFollowsFilesAndCloseWaits(t *testing.T) {
	srv := iiitest.NewServer(t)
	dir := t.TempDir()
	for _, sub := range []string{"docs", "agents"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath := filepath.Join(dir, "config.yaml")
	write(t, cfgPath, "skills: [docs/*.md]\nroots: [agents]\ntools: {enabled: true}\n")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	// The tool skill is approved before its file exists: the worker must
	// pick the file up from the watch.
	helloPath := filepath.Join(dir, "agents", "hello", "SKILL.md")
	lock, err := tools.ReadLock(cfg.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	lock.Approved[helloPath] = tools.Approval{Skill: "hello", SHA256: tools.Sum([]byte(helloSkill))}
	if err := lock.Write(cfg.LockPath()); err != nil {
		t.Fatal(err)
	}

	w, err := New(config.Resolve(cfg, config.ModeWorker), Options{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- w.Run(context.Background()) }()
	closed := false
	t.Cleanup(func() {
		if !closed {
			w.Close() //nolint:errcheck // the test failed before it closed the worker
		}
	})

	caller := iii.New(iii.Options{URL: srv.URL(), Name: "caller"})
	events := make(chan string, 16)
	caller.RegisterFunction(iii.Function{ID: "test::record", Handler: func(_ context.Context, req iii.Request) (any, error) {
		events <- string(req.Data)
		return nil, nil
	}})
	caller.RegisterTrigger(iii.Trigger{ID: "test-on-change", Type: contract.SkillsOnChange, FunctionID: "test::record"})
	caller.Start()
	defer caller.Close() //nolint:errcheck // closed again below, before the leak check
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := srv.WaitFunction(ctx, "skills::register"); err != nil {
		t.Fatal(err)
	}
	if err := caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	// A stored skill's event says the subscription is in place.
	if _, err := caller.Call(ctx, "skills::register", map[string]string{"id": "marker", "skill": "# Marker"}); err != nil {
		t.Fatal(err)
	}
	waitEvent(ctx, t, events, `"id":"marker"`)

	write(t, filepath.Join(dir, "docs", "fresh.md"), "# Fresh\n")
	waitEvent(ctx, t, events, `"id":"fresh"`, `"source":"fs"`, `"op":"register"`)
	if err := os.MkdirAll(filepath.Dir(helloPath), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, helloPath, helloSkill)
	if err := srv.WaitFunction(ctx, "hello::greet"); err != nil {
		t.Fatalf("the approved tool skill added after start never became a function: %v", err)
	}

	caller.Close() //nolint:errcheck // its goroutines must not count as the worker's
	closed = true
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	select { // Close waited for Run; only the send of its result may be left
	case err := <-ran:
		if err != nil {
			t.Errorf("Run after Close = %v, want nil", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return")
	}
	if g := workerGoroutinesGone(); g != "" {
		t.Errorf("goroutines left after Close:\n%s", g)
	}
	if err := w.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("a second Run = %v, want ErrClosed", err)
	}
}

// A worker closed before it ran never runs.
func TestCloseBeforeRun(t *testing.T) {
	w, err := New(config.Default(), Options{URL: "ws://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close = %v, want ErrClosed", err)
	}
}

// New names what is missing.
func TestNewNeedsAURL(t *testing.T) {
	if _, err := New(config.Default(), Options{}); err == nil || !strings.Contains(err.Error(), "no engine URL") {
		t.Errorf("New without a URL = %v", err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitEvent waits for an on-change payload holding every fragment,
// skipping others.
func waitEvent(ctx context.Context, t *testing.T, events <-chan string, fragments ...string) {
	t.Helper()
	for {
		select {
		case e := <-events:
			if !json.Valid([]byte(e)) {
				t.Fatalf("event is not JSON: %s", e)
			}
			compact := new(bytes.Buffer)
			_ = json.Compact(compact, []byte(e))
			all := true
			for _, f := range fragments {
				all = all && strings.Contains(compact.String(), f)
			}
			if all {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no on-change event with %v", fragments)
		}
	}
}

// workerGoroutinesGone waits until no goroutine the worker or one of
// its parts started is running, and returns the stacks of those still
// running at the deadline (goroutinesGone).
func workerGoroutinesGone() string { return goroutinesGone(workerParts...) }
