package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Once a call that changed the registry has returned, every list shows
// the change: nothing waits for an event, and no list is a copy.
func TestListsShowAChangeAsSoonAsItsCallReturns(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()

	r.call(t, "skills::register", map[string]string{"id": "fresh", "skill": "# Fresh\n\nJust registered."})
	if got := r.uris(t); !slices.Contains(got, "iii://fresh") {
		t.Errorf("resources/list right after skills::register returned = %v, want iii://fresh", got)
	}
	r.call(t, "prompts::register", map[string]any{"name": "fresh-prompt", "description": "Fresh.", "function_id": "test::prompt"})
	if list, err := r.session.ListPrompts(ctx, nil); err != nil || !slices.ContainsFunc(list.Prompts, func(p *mcp.Prompt) bool { return p.Name == "fresh-prompt" }) {
		t.Errorf("prompts/list right after prompts::register returned = %+v, %v", list, err)
	}
	r.call(t, "skills::unregister", map[string]string{"id": "fresh"})
	if got := r.uris(t); slices.Contains(got, "iii://fresh") {
		t.Errorf("resources/list right after skills::unregister returned = %v, still with iii://fresh", got)
	}

	// A function exposed by another worker is a tool as soon as the engine
	// has it, not once the engine's next functions-available poll fires.
	r.caller.RegisterFunction(iii.Function{ID: "acme::fresh", Metadata: json.RawMessage(`{"mcp.expose": true}`),
		Handler: func(context.Context, iii.Request) (any, error) { return "fresh", nil }})
	wctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	if err := r.srv.WaitFunction(wctx, "acme::fresh"); err != nil {
		t.Fatal(err)
	}
	tools, err := r.session.ListTools(ctx, nil)
	if err != nil || !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "acme__fresh" }) {
		t.Errorf("tools/list right after the engine had acme::fresh = %+v, %v", tools, err)
	}
	out, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "acme__fresh"})
	if err != nil || out.IsError || out.Content[0].(*mcp.TextContent).Text != `"fresh"` {
		t.Errorf("acme__fresh = %+v, %v", out, err)
	}
	if _, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "acme__private"}); err == nil || !strings.Contains(err.Error(), `unknown tool "acme__private"`) {
		t.Errorf("a call of an unexposed function's name: %v, want unknown tool", err)
	}
}

// The registry's own pages are the MCP pages, its cursors passed through
// as they are; --page-size cuts pages of its own across the registry's.
// Either way a client that follows nextCursor gets every entry once.
func TestListsFollowTheRegistrysPages(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pageSize int // the bridge's; 0: the registry's (2)
		perPage  int
	}{
		{"registry pages", 0, 2},
		{"page-size 3 over registry pages of 2", 3, 3},
		{"page-size 1", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRigTB(t, 2, PageSize(tc.pageSize))
			ctx := context.Background()
			for _, id := range []string{"p1", "p2", "p3", "p4"} {
				r.call(t, "skills::register", map[string]string{"id": id, "skill": "# " + id})
			}
			var got []string
			cursor := ""
			for pages := 1; ; pages++ {
				res, err := r.session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Resources) > tc.perPage || (res.NextCursor != "" && len(res.Resources) != tc.perPage) || pages > 10 {
					t.Fatalf("page %d has %d entries (next %q), want %d a page", pages, len(res.Resources), res.NextCursor, tc.perPage)
				}
				for _, x := range res.Resources {
					got = append(got, x.URI)
				}
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if want := []string{"iii://skills", "iii://p1", "iii://p2", "iii://p3", "iii://p4"}; !slices.Equal(got, want) {
				t.Errorf("resources over every page = %v, want %v", got, want)
			}
		})
	}
}

// With the registry worker gone from a running engine, lists and reads
// fail with an error that names the engine and says the registry is not
// there, rather than answering from an old copy.
func TestRegistryGoneListsFail(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	r.call(t, "prompts::register", map[string]any{"name": "kept", "description": "Kept.", "function_id": "test::prompt"})
	if _, err := r.session.ListPrompts(ctx, nil); err != nil {
		t.Fatal(err)
	}
	r.worker.Close()
	if err := r.srv.WaitFunctionGone(ctx, "prompts::mcp-list"); err != nil {
		t.Fatal(err)
	}
	_, err := r.session.ListPrompts(ctx, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError ||
		!strings.Contains(je.Message, "prompts::mcp-list is not registered") || !strings.Contains(je.Message, r.srv.URL()) {
		t.Errorf("prompts/list with the registry gone: %v, want -32603 naming the engine and the missing function", err)
	}
	if _, err := r.session.ListResources(ctx, nil); err == nil || !strings.Contains(err.Error(), r.srv.URL()) {
		t.Errorf("resources/list with the registry gone: %v", err)
	}
}

// Errors say what was asked for and what is served.
func TestErrorsNameTheValue(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for _, tc := range []struct {
		uri  string
		want []string
	}{
		{"iii://no-such-skill", []string{"resource iii://no-such-skill not found", "Skill not found: no-such-skill", "resources/list"}},
		{"https://example.com/SKILL.md", []string{"https://example.com/SKILL.md", "the scheme https://", "only iii:// and skill:// URIs are served"}},
		{"file:///etc/passwd", []string{"file:///etc/passwd", "only iii:// and skill:// URIs are served"}},
		{"no-scheme", []string{"no-scheme", "it has no scheme"}},
	} {
		_, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound {
			t.Errorf("read %s: %v, want the resource-not-found error", tc.uri, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(je.Message, w) {
				t.Errorf("read %s: %q, want it to say %q", tc.uri, je.Message, w)
			}
		}
		var data struct{ URI string }
		if json.Unmarshal(je.Data, &data) != nil || data.URI != tc.uri {
			t.Errorf("read %s: data %s, want the URI", tc.uri, je.Data)
		}
	}
	if err := r.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "https://example.com/x"}); err == nil || !strings.Contains(err.Error(), "only iii:// and skill:// URIs are served") {
		t.Errorf("subscribe to an https:// URI: %v", err)
	}
	_, err := r.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no-such-prompt"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, `unknown prompt "no-such-prompt"`) ||
		!strings.Contains(je.Message, "prompts/list") {
		t.Errorf("prompts/get of an unknown prompt: %v, want -32602 naming it", err)
	}
}

// The index and a skill whose listing entry has a description carry it
// to resources/list as they are.
func TestResourceDescriptions(t *testing.T) {
	r := newRig(t)
	res, err := r.session.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res.Resources {
		if x.URI == "iii://skills" && x.Description == "" {
			t.Errorf("the index has no description: %+v", x)
		}
	}
}

// A listing entry reaches resources/list field for field: a skill's
// description, title, size and lastModified included.
func TestResourceEntriesPassThrough(t *testing.T) {
	entry := `{"uri":"iii://a","name":"A","title":"Skill A","description":"Does a.","mimeType":"text/markdown","size":3,"annotations":{"lastModified":"2026-01-02T03:04:05Z"}}`
	_, cs, _ := followed(t, contract.FnSkillsResourcesList, `{"resources":[`+entry+`]}`)
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(res.Resources) != 1 {
		t.Fatalf("resources/list = %+v, %v", res, err)
	}
	var got, want map[string]any
	b, _ := json.Marshal(res.Resources[0])
	_ = json.Unmarshal(b, &got)
	_ = json.Unmarshal([]byte(entry), &want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entry (-want +got)\n%s", d)
	}
}
