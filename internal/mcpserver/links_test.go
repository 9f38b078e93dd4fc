package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over MCP, links are followed as on the bus (docs/decisions.md D70):
// resources/read of a URI written by joining a link to a skill's URI,
// a trailing '/' included, and skill__fetch with a base. A relative link
// never runs a section, and one written in full is still checked.
func TestLinksOverMCP(t *testing.T) {
	r := newRig(t)
	fns := &sectionFunctions{}
	fns.register(t, r, map[string]string{"admin::wipe-all": ""})
	r.call(t, "skills::register", map[string]string{"id": "resend", "skill": "# Resend\n\nSee [the API](api) and [setup](./api/setup#keys)."})
	r.call(t, "skills::register", map[string]string{"id": "resend/api", "skill": "# Resend API\n\nBack to [resend](../)."})
	r.call(t, "skills::register", map[string]string{"id": "resend/api/setup", "skill": "# Setup\n"})
	ctx := context.Background()

	for uri, want := range map[string]string{
		"iii://resend/./api":                    "# Resend API",
		"iii://resend/api/":                     "# Resend API",
		"iii://resend/api/../":                  "# Resend",
		"iii://resend/./api/setup#keys":         "# Setup",
		"iii://resend/#see":                     "# Resend",
		"iii://resend/{baseDir}/api":            "# Resend API",
		"skill://resend/api/{baseDir}/SKILL.md": "---\nname: api",
		"skill://resend/api/../":                "---\nname: resend",
	} {
		res, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].URI != uri || !strings.HasPrefix(res.Contents[0].Text, want) {
			t.Errorf("read %s over MCP = %+v, %v; want %q under the URI asked for", uri, res, err, want)
		}
	}
	for uri, want := range map[string]struct {
		code int64
		says string
	}{
		"iii://resend/../../x":     {jsonrpc.CodeInvalidParams, "above the registry root"},
		"iii://resend/../gone/":    {mcp.CodeResourceNotFound, "resolves to iii://gone"},
		"iii://resend/../fn/x/y":   {jsonrpc.CodeInvalidParams, "section"},
		"iii://resend/api/%2e%2e/": {jsonrpc.CodeInvalidParams, "percent-encoded"},
		"iii://fn/":                {jsonrpc.CodeInvalidParams, "empty segments"},
	} {
		_, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != want.code || !strings.Contains(je.Message, want.says) {
			t.Errorf("read %s over MCP: %v, want %d saying %q", uri, err, want.code, want.says)
		}
	}

	fetch := func(args map[string]any) (string, bool) {
		t.Helper()
		out, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: args})
		if err != nil {
			t.Fatalf("skill__fetch %v: %v", args, err)
		}
		return out.Content[0].(*mcp.TextContent).Text, out.IsError
	}
	if text, failed := fetch(map[string]any{"base": "iii://resend", "uris": []string{"api", "./api/setup#keys"}}); failed ||
		text != "# iii://resend/api\n\n# Resend API\n\nBack to [resend](../).\n\n---\n\n# iii://resend/api/setup\n\n# Setup" {
		t.Errorf("skill__fetch with base = %q (error %v)", text, failed)
	}
	if text, failed := fetch(map[string]any{"base": "iii://resend/api", "uri": "../"}); failed || !strings.HasPrefix(text, "# iii://resend\n\n# Resend") {
		t.Errorf("skill__fetch of ../ from iii://resend/api = %q (error %v)", text, failed)
	}
	if text, failed := fetch(map[string]any{"base": "iii://resend", "uris": []string{"api", "iii://fn/admin/wipe-all"}}); !failed || !strings.Contains(text, "Nothing was run") {
		t.Errorf("skill__fetch with base and a section written in full = %q (error %v); want it refused", text, failed)
	}
	if text, failed := fetch(map[string]any{"base": "iii://resend", "uri": "../fn/admin/wipe-all"}); !failed || !strings.Contains(text, "a link never names") {
		t.Errorf("skill__fetch of a relative link to a section = %q (error %v); want it refused", text, failed)
	}
	if n := fns.count("admin::wipe-all"); n != 0 {
		t.Errorf("admin::wipe-all ran %d times through links", n)
	}

	tools, err := r.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "skill__fetch" && (!strings.Contains(tl.Description, "pass it exactly as written in `uri` or `uris`") || !strings.Contains(tl.Description, "in `base`")) {
			t.Errorf("skill__fetch's description %q does not say how to follow a relative link", tl.Description)
		}
	}
}
