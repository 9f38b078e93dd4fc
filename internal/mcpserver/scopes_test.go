package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The scope check runs before every handler: without skills:read only
// initialize, ping and notifications pass; without skills:tools, tools/list
// keeps the registry's own tools and tools/call of another is refused
// naming the scope; with both, everything passes as it came.
func TestCheckScopes(t *testing.T) {
	b := &Bridge{}
	tools := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "git__log"}, {Name: "skill__fetch"}, {Name: "skill__search"}}}
	reached := ""
	next := func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
		reached = method
		if method == "tools/list" {
			return tools, nil
		}
		return &mcp.ListResourcesResult{}, nil
	}
	check := b.checkScopes(next)
	extra := func(scopes ...string) *mcp.RequestExtra {
		return &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{Scopes: scopes}}
	}
	call := func(name string, e *mcp.RequestExtra) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name}, Extra: e}
	}
	for _, tc := range []struct {
		name    string
		method  string
		req     mcp.Request
		reached bool
		err     string
	}{
		{"initialize without scopes", "initialize", &mcp.ServerRequest[*mcp.InitializeParams]{}, true, ""},
		{"ping without scopes", "ping", &mcp.ServerRequest[*mcp.PingParams]{}, true, ""},
		{"a list without a token", "resources/list", &mcp.ListResourcesRequest{}, false, "resources/list needs the scope skills:read, which this bearer token lacks (it grants: none)"},
		{"a list without skills:read", "resources/list", &mcp.ListResourcesRequest{Extra: extra("skills:tools")}, false, "needs the scope skills:read"},
		{"a list with skills:read", "resources/list", &mcp.ListResourcesRequest{Extra: extra("skills:read")}, true, ""},
		{"fetch with skills:read", "tools/call", call("skill__fetch", extra("skills:read")), true, ""},
		{"an exposed tool with skills:read", "tools/call", call("git__log", extra("skills:read")), false,
			`tools/call of "git__log" needs the scope skills:tools, which this bearer token lacks (it grants: skills:read); ask the operator for a token with skills:tools`},
		{"an exposed tool with both", "tools/call", call("git__log", extra("skills:read", "skills:tools")), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reached = ""
			_, err := check(context.Background(), tc.method, tc.req)
			if (reached != "") != tc.reached {
				t.Errorf("the handler was reached: %v; want %v", reached != "", tc.reached)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error = %v; want %q", err, tc.err)
			}
		})
	}
	names := func(scopes ...string) []string {
		res, err := check(context.Background(), "tools/list", &mcp.ListToolsRequest{Extra: extra(scopes...)})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.(*mcp.ListToolsResult).Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	if got := names("skills:read"); !slices.Equal(got, []string{"skill__fetch", "skill__search"}) {
		t.Errorf("tools/list with skills:read = %v; want the registry's own tools only", got)
	}
	if got := names("skills:read", "skills:tools"); !slices.Equal(got, []string{"git__log", "skill__fetch", "skill__search"}) {
		t.Errorf("tools/list with both scopes = %v; want every tool", got)
	}
	if len(tools.Tools) != 3 {
		t.Errorf("the check changed the list it was given: %d tools left", len(tools.Tools))
	}
}
