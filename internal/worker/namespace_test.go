package worker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"go.uber.org/zap/zaptest"
)

// runIn runs a worker for cfg in namespace ns on the engine at url until
// the test ends.
func runIn(t *testing.T, url, ns string, cfg config.Config) {
	t.Helper()
	w, err := New(config.Resolve(cfg, config.ModeWorker), Options{URL: url, Namespace: ns, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- w.Run(context.Background()) }()
	t.Cleanup(func() {
		w.Close() //nolint:errcheck // Run's result is checked below
		if err := <-ran; err != nil {
			t.Errorf("the worker in namespace %q ended with %v", ns, err)
		}
	})
}

// callerIn is a client in namespace ns whose calls go there, as an
// official SDK's do.
func callerIn(t *testing.T, url, ns string) *iii.Client {
	t.Helper()
	c := iii.New(iii.Options{URL: url, Name: "caller-" + ns, Namespace: ns})
	c.Start()
	t.Cleanup(func() { c.Close() }) //nolint:errcheck // test teardown
	return c
}

// A worker in a namespace of an engine whose state worker is the
// engine's built-in one (iii 0.23: in the default namespace only) finds
// it there: its registry is served in its namespace, its rows are stored
// in the default namespace's state, and its catalog follows them (the
// state binding, resolved at home then in the default namespace, is live
// and delivers the worker's own writes back to it in its namespace).
func TestWorkerInANamespaceFindsTheDefaultStateWorker(t *testing.T) {
	srv := iiitest.NewServerWith(t, engine.Options{Namespaces: true})
	runIn(t, srv.URL(), "shop", config.Default())
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := srv.WaitFunctionIn(ctx, "shop", "skills::register"); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.FunctionIn(engine.DefaultNamespace, "skills::register"); ok {
		t.Fatal("skills::register is registered in the default namespace too; want only in shop")
	}
	if err := srv.WaitTriggerTypeIn(ctx, "shop", contract.SkillsOnChange); err != nil {
		t.Fatal(err)
	}

	caller := callerIn(t, srv.URL(), "shop")
	if err := caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := caller.Call(ctx, "skills::register", map[string]string{"id": "hello", "skill": "# Hello\n\nFrom the shop."}); err != nil {
		t.Fatalf("skills::register in shop: %v", err)
	}
	if _, ok := srv.State(config.DefaultSkillsScope, "hello"); !ok {
		t.Fatal("the row of hello is not in the default namespace's state")
	}
	// The catalog follows the engine's state worker: it says so, and a row
	// written behind the worker's back reaches its listing.
	diag, err := caller.Call(ctx, "skills::diagnostics", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Engine struct {
			StateTrigger bool `json:"state_trigger"`
		} `json:"engine"`
	}
	if err := json.Unmarshal(diag, &rep); err != nil || !rep.Engine.StateTrigger {
		t.Fatalf("skills::diagnostics engine = %s (%v); want state_trigger true", diag, err)
	}
	row, err := json.Marshal(map[string]any{"id": "other", "skill": "# Other\n\nWritten by another worker.", "registered_at": "2026-11-28T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.SetState(config.DefaultSkillsScope, "other", row); err != nil {
		t.Fatal(err)
	}
	for {
		list, err := caller.Call(ctx, "skills::list", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(list), `"other"`) && strings.Contains(string(list), `"hello"`) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("skills::list in shop never showed both rows: %s\nbindings: %+v", list, srv.BindingsIn("shop"))
		case <-time.After(10 * time.Millisecond): // paces the asking; ctx decides
		}
	}
	// A caller in the default namespace does not reach the shop's registry.
	outsider := callerIn(t, srv.URL(), "")
	if err := outsider.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = outsider.Call(ctx, "skills::list", map[string]any{})
	if ie, ok := errors.AsType[*iii.Error](err); !ok || ie.Code != iii.CodeFunctionNotFound || !strings.Contains(ie.Message, "registered in namespace(s): shop") {
		t.Fatalf("skills::list from the default namespace = %v; want function_not_found naming shop", err)
	}
}

// Two skills workers in two namespaces of one engine, each project with a
// state worker of its own (as iii compose runs a project's state
// container), keep their registries, their state and their trigger types
// apart: a skill registered in one is listed, stored and announced there
// only.
func TestTwoNamespacesKeepTheirRegistriesApart(t *testing.T) {
	srv := iiitest.NewServerWith(t, engine.Options{Namespaces: true})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	announced := map[string]chan string{}
	for _, ns := range []string{"red", "blue"} {
		if err := srv.StartStateIn(ns); err != nil {
			t.Fatal(err)
		}
		runIn(t, srv.URL(), ns, config.Default())
		if err := srv.WaitTriggerTypeIn(ctx, ns, contract.SkillsOnChange); err != nil {
			t.Fatal(err)
		}
		// A subscriber in each namespace hears that namespace's changes.
		events := make(chan string, 8)
		announced[ns] = events
		sub := iii.New(iii.Options{URL: srv.URL(), Name: "subscriber-" + ns, Namespace: ns})
		sub.RegisterFunction(iii.Function{ID: "test::heard", Handler: func(_ context.Context, req iii.Request) (any, error) {
			events <- string(req.Data)
			return nil, nil
		}})
		sub.RegisterTrigger(iii.Trigger{ID: "heard-" + ns, Type: contract.SkillsOnChange, FunctionID: "test::heard"})
		sub.Start()
		t.Cleanup(func() { sub.Close() }) //nolint:errcheck // test teardown
		if err := srv.WaitBindingIn(ctx, ns, "heard-"+ns); err != nil {
			t.Fatal(err)
		}
	}
	red, blue := callerIn(t, srv.URL(), "red"), callerIn(t, srv.URL(), "blue")
	for _, c := range []*iii.Client{red, blue} {
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := red.Call(ctx, "skills::register", map[string]string{"id": "red-only", "skill": "# Red only"}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-announced["red"]:
		if !strings.Contains(ev, `"red-only"`) {
			t.Fatalf("red heard %s; want the registration of red-only", ev)
		}
	case <-ctx.Done():
		t.Fatal("red's subscriber never heard the registration")
	}
	if _, ok := srv.StateIn("red", config.DefaultSkillsScope, "red-only"); !ok {
		t.Error("red-only is not in red's state")
	}
	for _, ns := range []string{"blue", engine.DefaultNamespace} {
		if _, ok := srv.StateIn(ns, config.DefaultSkillsScope, "red-only"); ok {
			t.Errorf("red-only is in %s's state too", ns)
		}
	}
	list, err := blue.Call(ctx, "skills::list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(list), "red-only") {
		t.Errorf("blue lists red's skill: %s", list)
	}
	// Blue's own registration is announced to blue, and to blue only: the
	// event red's subscriber would get would come first had it been sent.
	if _, err := blue.Call(ctx, "skills::register", map[string]string{"id": "blue-only", "skill": "# Blue only"}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-announced["blue"]:
		if !strings.Contains(ev, `"blue-only"`) {
			t.Fatalf("blue heard %s; want the registration of blue-only", ev)
		}
	case <-ctx.Done():
		t.Fatal("blue's subscriber never heard the registration")
	}
	if _, err := red.Call(ctx, "skills::register", map[string]string{"id": "red-second", "skill": "# Red second"}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-announced["red"]:
		if !strings.Contains(ev, `"red-second"`) {
			t.Fatalf("red heard %s after blue's registration; want only red's own (red-second)", ev)
		}
	case <-ctx.Done():
		t.Fatal("red's subscriber never heard its second registration")
	}
}

// A second worker taking a name already held in its namespace is refused
// by the engine (WORKER_NAMESPACE_CONFLICT): its Run ends with ErrRefused
// and an error naming the namespace and the name, while the first keeps
// serving; the same name in another namespace is no conflict.
func TestANameTakenInTheNamespaceIsRefused(t *testing.T) {
	srv := iiitest.NewServerWith(t, engine.Options{Namespaces: true})
	runIn(t, srv.URL(), "shop", config.Default())
	runIn(t, srv.URL(), "depot", config.Default())
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, ns := range []string{"shop", "depot"} {
		if err := srv.WaitWorkerIn(ctx, ns, "skills"); err != nil {
			t.Fatal(err)
		}
	}
	second, err := New(config.Default(), Options{URL: srv.URL(), Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() }) //nolint:errcheck // Run has returned
	ran := make(chan error, 1)
	go func() { ran <- second.Run(ctx) }()
	select {
	case err = <-ran:
	case <-ctx.Done():
		t.Fatal("the second worker named skills in shop was never refused")
	}
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `worker name "skills" in namespace "shop"`) {
		t.Fatalf("Run = %v; want ErrRefused naming the name and the namespace", err)
	}
	caller := callerIn(t, srv.URL(), "shop")
	if err := caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := caller.Call(ctx, "skills::list", map[string]any{}); err != nil {
		t.Errorf("the first worker stopped serving shop: %v", err)
	}
}
