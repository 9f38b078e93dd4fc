package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/iii"
)

// sectionFunctions are functions another worker registers, each counting
// the invocations the engine delivers to it.
type sectionFunctions struct {
	mu    sync.Mutex
	calls map[string]int
}

// register adds, through the rig's caller, a function per id answering
// "# <id>", with metadata when it is not empty, and waits for the engine
// to have them.
func (s *sectionFunctions) register(t *testing.T, r *rig, metadata map[string]string) {
	t.Helper()
	s.calls = map[string]int{}
	for id, meta := range metadata {
		f := iii.Function{ID: id, Handler: func(context.Context, iii.Request) (any, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.calls[id]++
			return "# " + id, nil
		}}
		if meta != "" {
			f.Metadata = json.RawMessage(meta)
		}
		r.caller.RegisterFunction(f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for id := range metadata {
		if err := r.srv.WaitFunction(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *sectionFunctions) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[id]
}

// Over MCP an iii://fn section runs only a function exposed to MCP, as
// tools/call does, or one the server's allow-list names: a read, a
// subscription or a skill__fetch of any other is refused with an error
// naming the function and saying how to allow it, and the engine never
// delivers an invocation to it. A fetch that names one such section runs
// none of its sections. On the bus the same reads run every function, as
// 0.2 did.
func TestSectionsOverMCPRunOnlyExposedFunctions(t *testing.T) {
	r := newRig(t, SectionsAllow("ops::*", "audit::log"))
	fns := &sectionFunctions{}
	fns.register(t, r, map[string]string{
		"admin::wipe-all": "",                          // not exposed
		"admin::quiet":    `{"mcp.expose": false}`,     // not exposed either
		"docs::status":    `{"mcp.expose": true}`,      // exposed, the dotted key
		"docs::nested":    `{"mcp": {"expose": true}}`, // exposed, nested
		"ops::report":     "",                          // allow-listed by prefix
		"audit::log":      "",                          // allow-listed by id
		"audit::logs":     "",                          // not: an id is no prefix
	})
	ctx := context.Background()

	refused := []string{"admin::wipe-all", "admin::quiet", "audit::logs", "nobody::registered"}
	for _, id := range refused {
		uri := "iii://fn/" + strings.ReplaceAll(id, "::", "/")
		_, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s over MCP: %v, want -32602", uri, err)
			continue
		}
		for _, want := range []string{uri + " runs the function " + id, "Nothing was run", `"mcp.expose": true`, "mcp.sections_allow"} {
			if !strings.Contains(je.Message, want) {
				t.Errorf("read %s over MCP: %q, want it to say %q", uri, je.Message, want)
			}
		}
		var data struct{ URI string }
		if json.Unmarshal(je.Data, &data) != nil || data.URI != uri {
			t.Errorf("read %s over MCP: data %s, want the URI", uri, je.Data)
		}
		if err := r.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "Nothing was run") {
			t.Errorf("subscribe to %s over MCP: %v, want the refusal", uri, err)
		}
	}
	_, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://fn/nobody/registered"})
	if err == nil || !strings.Contains(err.Error(), "nobody::registered, which is not registered on the engine") {
		t.Errorf("read of an unregistered function's section: %v, want it to say so", err)
	}

	// A batch with one refused section runs none, and names every refused
	// function.
	out, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{
		"uris": []string{"iii://fn/docs/status", "iii://fn/admin/wipe-all", "iii://fn/ops/report", "iii://fn/admin/quiet"}}})
	text := ""
	if err == nil && len(out.Content) == 1 {
		text = out.Content[0].(*mcp.TextContent).Text
	}
	if err != nil || !out.IsError || !strings.Contains(text, "iii://fn/admin/wipe-all runs the function admin::wipe-all, which is not exposed to MCP clients; iii://fn/admin/quiet runs the function admin::quiet") ||
		strings.Contains(text, "docs::status") || strings.Contains(text, "ops::report") {
		t.Errorf("skill__fetch of a batch with refused sections: %+v %q, %v; want a tool error naming admin::wipe-all and admin::quiet alone", out, text, err)
	}
	out, err = r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{"uri": "iii://fn/admin/wipe-all"}})
	if err != nil || !out.IsError || !strings.Contains(out.Content[0].(*mcp.TextContent).Text, "admin::wipe-all") {
		t.Errorf("skill__fetch of a refused section by uri: %+v, %v", out, err)
	}
	for _, id := range append(refused, "docs::status", "ops::report") {
		if n := fns.count(id); n != 0 {
			t.Errorf("%s was invoked %d times by refused reads; want none", id, n)
		}
	}

	// Exposed and allow-listed functions run, by read and by fetch.
	for _, id := range []string{"docs::status", "docs::nested", "ops::report", "audit::log"} {
		uri := "iii://fn/" + strings.ReplaceAll(id, "::", "/")
		res, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "# "+id {
			t.Errorf("read %s over MCP = %+v, %v; want # %s", uri, res, err, id)
		}
	}
	out, err = r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{"uris": []string{"iii://fn/docs/status", "iii://fn/ops/report"}}})
	if err != nil || out.IsError || out.Content[0].(*mcp.TextContent).Text != "# iii://fn/docs/status\n\n# docs::status\n\n---\n\n# iii://fn/ops/report\n\n# ops::report" {
		t.Errorf("skill__fetch of allowed sections: %+v, %v", out, err)
	}
	if fns.count("docs::status") != 2 || fns.count("ops::report") != 2 || fns.count("docs::nested") != 1 || fns.count("audit::log") != 1 {
		t.Errorf("invocations of the allowed functions: %v; want one per read", fns.calls)
	}

	// Sections of the engine's and the registry's namespaces are the
	// registry's to refuse, as before.
	_, err = r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://fn/skills/list"})
	if err == nil || !strings.Contains(err.Error(), "internal namespace") {
		t.Errorf("read of a registry function's section: %v, want the registry's refusal", err)
	}

	// On the bus, 0.2's behaviour: every section runs.
	r.call(t, "skills::resources-read", map[string]string{"uri": "iii://fn/admin/wipe-all"})
	r.call(t, "skill::fetch", map[string]any{"uris": []string{"iii://fn/admin/wipe-all", "iii://fn/audit/logs"}})
	if fns.count("admin::wipe-all") != 2 || fns.count("audit::logs") != 1 {
		t.Errorf("invocations through the bus: %v; want admin::wipe-all twice and audit::logs once", fns.calls)
	}
}

// Without an allow-list nothing but the exposed functions runs, and
// sectionAllowed matches ids exactly and prefixes ending in *.
func TestSectionAllowed(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		id       string
		want     bool
	}{
		{nil, "a::b", false},
		{[]string{"a::b"}, "a::b", true},
		{[]string{"a::b"}, "a::bc", false},
		{[]string{"a::*"}, "a::b::c", true},
		{[]string{"a::*"}, "ab::c", false},
		{[]string{"a*"}, "ab::c", true},
		{[]string{"*"}, "anything::at-all", true},
		{[]string{"x::y", "a::*"}, "a::b", true},
	} {
		if got := sectionAllowed(c.patterns, c.id); got != c.want {
			t.Errorf("sectionAllowed(%q, %q) = %v, want %v", c.patterns, c.id, got, c.want)
		}
	}
}
