package registry

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// replica is one worker's registry with its catalog, on a real engine.
type replica struct {
	reg     *Registry
	skills  *catalog.Scope
	prompts *catalog.Scope
}

func newReplica(t *testing.T, srv *engine.Engine, name string, cacheBytes int64) *replica {
	t.Helper()
	client := iii.New(iii.Options{URL: srv.URL(), Name: name})
	return newReplicaOver(t, client, client, cacheBytes)
}

// newReplicaOver is newReplica with the catalog and the registry reaching
// the engine through e (client itself, or a wrapper that watches it).
func newReplicaOver(t *testing.T, client *iii.Client, e catalog.Engine, cacheBytes int64) *replica {
	t.Helper()
	skills := catalog.NewSkillsScope("skills", cacheBytes)
	prompts := catalog.NewPromptsScope("prompts")
	cat := catalog.New(e, 5*time.Second, nil, skills, prompts)
	reg := New(Config{Caller: e, SkillsMirror: skills, PromptsMirror: prompts})
	client.Start()
	cat.Start()
	t.Cleanup(func() {
		cat.Close()
		client.Close()
	})
	waitScope(t, skills, "load", skills.Valid)
	waitScope(t, prompts, "load", prompts.Valid)
	return &replica{reg: reg, skills: skills, prompts: prompts}
}

// waitScope waits for cond, re-checking at every change of the scope.
func waitScope(t *testing.T, s *catalog.Scope, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		ch := s.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("scope %s: never saw %s", s.Name(), what)
		}
	}
}

// Two workers on one engine and scope serve the same content: a write
// through one is read back from the other once its state event arrives
// (docs/decisions.md D23), and a write is visible on the writer at once
// (D18), both in the 0.2 row format.
func TestReplicasServeEachOthersWrites(t *testing.T) {
	srv := iiitest.NewServer(t)
	a, b := newReplica(t, srv, "skills-a", 1<<20), newReplica(t, srv, "skills-b", 1<<20)
	ctx := context.Background()

	if _, err := a.reg.registerSkill(ctx, registerSkillInput{ID: "shared/guide", Skill: "# Guide\n\nWritten through replica A."}); err != nil {
		t.Fatal(err)
	}
	if body, err := a.reg.skillBody(ctx, "shared/guide"); err != nil || !strings.Contains(body, "replica A") {
		t.Fatalf("the writer reads %q, %v right after its own write", body, err)
	}
	waitScope(t, b.skills, "replica A's write", func() bool { _, found, _ := b.skills.Get("shared/guide"); return found })
	out, err := b.reg.resourcesRead(ctx, readIn("iii://shared/guide"))
	if err != nil || len(out.Contents) != 1 || !strings.Contains(out.Contents[0].Text, "Written through replica A.") {
		t.Fatalf("replica B reads %+v, %v", out, err)
	}

	if _, err := b.reg.unregisterSkill(ctx, unregisterSkillInput{ID: "shared/guide"}); err != nil {
		t.Fatal(err)
	}
	waitScope(t, a.skills, "replica B's delete", func() bool { _, found, auth := a.skills.Get("shared/guide"); return auth && !found })
	if _, err := a.reg.resourcesRead(ctx, readIn("iii://shared/guide")); err == nil || !strings.Contains(err.Error(), "Skill not found") {
		t.Errorf("replica A still serves the deleted skill: %v", err)
	}

	// The row in state is the 0.2 format, readable by a 0.2 worker.
	if err := srv.SetState("skills", "legacy", json.RawMessage(`{"id":"legacy","skill":"# Legacy\n\nFrom the Rust worker.","registered_at":"2026-05-04T19:22:41.123456789+00:00"}`)); err != nil {
		t.Fatal(err)
	}
	waitScope(t, a.skills, "a row written by another worker", func() bool { _, found, _ := a.skills.Get("legacy"); return found })
	list, err := a.reg.listSkills(ctx, listSkillsInput{})
	if err != nil || len(list.Skills) != 1 || list.Skills[0].ID != "legacy" || list.Skills[0].RegisteredAt != "2026-05-04T19:22:41.123456789+00:00" {
		t.Errorf("replica A lists %+v, %v", list, err)
	}
}

// With a body budget smaller than the bodies (or none), every read is
// still answered, fetching the body from the engine when it is not kept,
// and listings never need a body (docs/decisions.md D17).
func TestReadsBeyondTheBodyBudgetGoToTheEngine(t *testing.T) {
	for _, budget := range []int64{0, 40} {
		srv := iiitest.NewServer(t)
		r := newReplica(t, srv, "skills", budget)
		ctx := context.Background()
		bodies := map[string]string{"a": "# A\n\nalpha body, thirty bytes.", "b": "# B\n\nbeta body, also thirty b."}
		for id, body := range bodies {
			if _, err := r.reg.registerSkill(ctx, registerSkillInput{ID: id, Skill: body}); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			for id, want := range bodies {
				if got, err := r.reg.skillBody(ctx, id); err != nil || got != want {
					t.Errorf("budget %d: read %s = %q, %v; want %q", budget, id, got, err, want)
				}
			}
		}
		used, _, _, misses := r.skills.Stats()
		if used > budget || misses == 0 {
			t.Errorf("budget %d: %d bytes kept, %d misses; want within the budget and reads that missed", budget, used, misses)
		}
		list, err := r.reg.listSkills(ctx, listSkillsInput{})
		if err != nil || len(list.Skills) != 2 {
			t.Errorf("budget %d: list = %+v, %v", budget, list, err)
		}
	}
}

// Writes in quick succession are each visible at once on the writer: the
// re-read an own write queues never puts an older value back (a re-read
// answered before the next write was applied is discarded).
func TestOwnWritesInQuickSuccessionStayVisible(t *testing.T) {
	srv := iiitest.NewServer(t)
	r := newReplica(t, srv, "skills", 1<<20)
	ctx := context.Background()
	for i := range 100 {
		for _, desc := range []string{"First", "Second"} {
			in := registerPromptInput{Name: "again", Description: desc, FunctionID: "demo::f"}
			if _, err := r.reg.registerPrompt(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		out, err := r.reg.mcpListPrompts(ctx, listInput{})
		if err != nil || len(out.Prompts) != 1 || out.Prompts[0].Description != "Second" {
			t.Fatalf("round %d: mcp-list = %+v, %v; want the second description", i, out, err)
		}
	}
}

// The mcp-list payload is rendered once per catalog version (D19) and
// follows every change: one made through this worker at once, one made by
// another worker once its state event arrives.
func TestMCPListFollowsEveryPromptChange(t *testing.T) {
	srv := iiitest.NewServer(t)
	a, b := newReplica(t, srv, "skills-a", 1<<20), newReplica(t, srv, "skills-b", 1<<20)
	ctx := context.Background()
	names := func(r *replica) []string {
		t.Helper()
		out, err := r.reg.mcpListPrompts(ctx, listInput{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range out.Prompts {
			got = append(got, p.Name)
		}
		return got
	}
	if got := names(a); len(got) != 0 {
		t.Fatalf("mcp-list of an empty scope = %v", got)
	}
	if _, err := a.reg.registerPrompt(ctx, registerPromptInput{Name: "triage", Description: "Triage an issue", FunctionID: "acme::triage"}); err != nil {
		t.Fatal(err)
	}
	if got := names(a); !slices.Equal(got, []string{"triage"}) {
		t.Errorf("the writer's mcp-list right after its write = %v, want [triage]", got)
	}
	if got := names(a); !slices.Equal(got, []string{"triage"}) {
		t.Errorf("the writer's mcp-list asked again = %v, want [triage]", got)
	}
	waitScope(t, b.prompts, "replica A's prompt", func() bool { _, found, _ := b.prompts.Get("triage"); return found })
	if got := names(b); !slices.Equal(got, []string{"triage"}) {
		t.Errorf("the other replica's mcp-list = %v, want [triage]", got)
	}
	if _, err := b.reg.unregisterPrompt(ctx, unregisterPromptInput{Name: "triage"}); err != nil {
		t.Fatal(err)
	}
	waitScope(t, a.prompts, "replica B's delete", func() bool { _, found, auth := a.prompts.Get("triage"); return auth && !found })
	if got := names(a); len(got) != 0 {
		t.Errorf("mcp-list after the other replica deleted the prompt = %v, want none", got)
	}
}
