package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// fakeEngine is a Caller and a Registrar: Follow's functions by trigger
// type, and an engine function list that a test changes.
type fakeEngine struct {
	mu        sync.Mutex
	handlers  map[string]iii.Handler // trigger type → the function bound to it
	functions []functionRow
	triggers  map[string]string // function id → trigger type
	answers   map[string]string // function id → its result, for the other functions
	lists     int               // calls of engine::functions::list
	hold      chan struct{}     // when set, the next function list waits for it to close
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{handlers: map[string]iii.Handler{}, triggers: map[string]string{}, answers: map[string]string{}}
}

func (f *fakeEngine) Call(ctx context.Context, fn string, _ any) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fn == fnFunctionsList {
		f.lists++
		if hold := f.hold; hold != nil {
			f.hold = nil
			f.mu.Unlock()
			select {
			case <-hold:
			case <-ctx.Done():
			}
			f.mu.Lock()
		}
	}
	switch fn {
	case fnFunctionsList:
		return json.Marshal(map[string]any{"functions": f.functions})
	case contract.FnSkillsResourcesRead:
		return json.RawMessage(`{"contents":[]}`), nil
	}
	if a, ok := f.answers[fn]; ok {
		return json.RawMessage(a), nil
	}
	return json.RawMessage(`{}`), nil
}

func (f *fakeEngine) RegisterFunction(fn iii.Function) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[fn.ID] = fn.Handler
}

func (f *fakeEngine) RegisterTrigger(t iii.Trigger) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.triggers[t.Type] = t.FunctionID
}

// fire delivers one event of the trigger type typ.
func (f *fakeEngine) fire(t *testing.T, typ, data string) {
	t.Helper()
	f.mu.Lock()
	h := f.handlers[f.triggers[typ]]
	f.mu.Unlock()
	if h == nil {
		t.Fatalf("nothing bound to %s", typ)
	}
	if _, err := h(context.Background(), iii.Request{Data: json.RawMessage(data)}); err != nil {
		t.Fatal(err)
	}
}

func (f *fakeEngine) expose(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.functions = append(f.functions, functionRow{ID: id, Metadata: json.RawMessage(`{"mcp.expose":true}`)})
}

// seen counts what a client was told.
type seen struct {
	mu      sync.Mutex
	listed  map[string]int
	updated []string
}

func (s *seen) snapshot() (map[string]int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	listed := map[string]int{}
	for k, v := range s.listed {
		listed[k] = v
	}
	return listed, slices.Clone(s.updated)
}

// followed connects a client in memory to a bridge over a fakeEngine,
// with Follow running; everything stops in t.Cleanup.
func followed(t *testing.T, answers ...string) (*fakeEngine, *mcp.ClientSession, *seen) {
	eng := newFakeEngine()
	for i := 0; i+1 < len(answers); i += 2 {
		eng.answers[answers[i]] = answers[i+1]
	}
	b := New(eng, "test", nil)
	t.Cleanup(b.Follow(eng))
	s := &seen{listed: map[string]int{}}
	count := func(kind string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.listed[kind]++
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := b.Server().Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { count("resources") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { count("prompts") },
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { count("tools") },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.updated = append(s.updated, req.Params.URI)
		},
	})
	cs, err := client.Connect(context.Background(), clientT, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return eng, cs, s
}

// settle lets the SDK's 10 ms debounce of list_changed pass on the
// bubble's clock, and everything then run until it blocks.
func settle() {
	synctest.Wait()
	time.Sleep(50 * time.Millisecond)
	synctest.Wait()
}

// Each on-change event becomes the list_changed of its list, a skill's
// also resources/updated for its iii:// and skill:// URIs; a
// functions-available event is tools/list_changed only when the exposed
// functions changed; and the placeholder that carries a notification is
// never listed.
func TestFollowTellsClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng, cs, s := followed(t)
		ctx := context.Background()
		for _, uri := range []string{"iii://alpha", "skill://alpha/SKILL.md"} {
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
		}
		settle()
		base, _ := s.snapshot()

		eng.fire(t, "skills::on-change", `{"op":"register","id":"alpha"}`)
		settle()
		listed, updated := s.snapshot()
		if listed["resources"] != base["resources"]+1 || listed["prompts"] != base["prompts"] || listed["tools"] != base["tools"] {
			t.Errorf("after a skill changed: %v (before %v), want one more resources list_changed", listed, base)
		}
		if want := []string{"iii://alpha", "skill://alpha/SKILL.md"}; !slices.Equal(updated, want) {
			t.Errorf("resources/updated = %v, want %v", updated, want)
		}

		eng.fire(t, "prompts::on-change", `{"op":"register","name":"p"}`)
		settle()
		if now, _ := s.snapshot(); now["prompts"] != listed["prompts"]+1 {
			t.Errorf("after a prompt changed: %v, want one more prompts list_changed", now)
		}

		eng.fire(t, "engine::functions-available", `{}`) // the first look: told
		settle()
		first, _ := s.snapshot()
		eng.fire(t, "engine::functions-available", `{}`) // nothing exposed changed
		settle()
		if now, _ := s.snapshot(); now["tools"] != first["tools"] {
			t.Errorf("tools/list_changed with no exposed function changed: %v (before %v)", now, first)
		}
		eng.expose("acme::new")
		eng.fire(t, "engine::functions-available", `{}`)
		settle()
		if now, _ := s.snapshot(); now["tools"] != first["tools"]+1 || now["resources"] != first["resources"] {
			t.Errorf("after a function was exposed: %v (before %v), want one more tools list_changed", now, first)
		}
		// The registry's functions appear (its worker started): the lists
		// that failed while it was away are worth asking again.
		before, _ := s.snapshot()
		eng.mu.Lock()
		eng.functions = append(eng.functions, functionRow{ID: contract.FnSkillsResourcesList}, functionRow{ID: contract.FnPromptsMCPList})
		eng.mu.Unlock()
		eng.fire(t, "engine::functions-available", `{}`)
		settle()
		if now, _ := s.snapshot(); now["resources"] != before["resources"]+1 || now["prompts"] != before["prompts"]+1 || now["tools"] != before["tools"] {
			t.Errorf("after the registry came: %v (before %v), want one more resources and prompts list_changed", now, before)
		}
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name)
		}
		if want := []string{"acme__new", "skill__fetch", "skill__search"}; !slices.Equal(names, want) {
			t.Errorf("tools = %v, want %v", names, want)
		}
		prompts, err := cs.ListPrompts(ctx, nil)
		if err != nil || slices.ContainsFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return strings.Contains(p.Name, placeholder) }) {
			t.Errorf("prompts = %+v, %v: the placeholder is listed", prompts, err)
		}
	})
}

// Events that arrive while Follow is telling clients of earlier ones are
// told once more, not once each: five functions-available events during
// a held look at the function list are one more look.
func TestFollowFoldsEventsDuringATelling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng, _, _ := followed(t)
		looks := func() int {
			synctest.Wait()
			eng.mu.Lock()
			defer eng.mu.Unlock()
			return eng.lists
		}
		release := make(chan struct{})
		eng.mu.Lock()
		eng.hold = release
		eng.mu.Unlock()
		eng.fire(t, "engine::functions-available", `{}`)
		if n := looks(); n != 1 {
			t.Fatalf("%d looks at the function list after one event, want 1", n)
		}
		for range 5 {
			eng.fire(t, "engine::functions-available", `{}`)
		}
		if n := looks(); n != 1 {
			t.Fatalf("%d looks while the first is held, want 1", n)
		}
		close(release)
		if n := looks(); n != 2 {
			t.Errorf("%d looks after 5 events during the first, want 2 (one more for all of them)", n)
		}
	})
}
