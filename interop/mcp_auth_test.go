package interop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpauth/oauthtest"
)

// authSeen is what mcp_auth_client.mjs reports.
type authSeen struct {
	ConnectError *struct {
		Name    string `json:"name"`
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"connectError"`
	Resources []string `json:"resources"`
	Tools     []string `json:"tools"`
	Search    bool     `json:"search"`
	Call      struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"call"`
}

// runAuthClient runs mcp_auth_client.mjs with args and decodes what it
// saw.
func runAuthClient(t *testing.T, args ...string) authSeen {
	t.Helper()
	var seen authSeen
	runClientScript(t, "mcp_auth_client.mjs", &seen, args...)
	return seen
}

// exposeEcho registers, through the engine at url, a function exposed to
// MCP (the tool authtest__echo), and waits until the engine lists it.
func exposeEcho(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := iii.New(iii.Options{URL: url, Name: "authtest"})
	c.RegisterFunction(iii.Function{ID: "authtest::echo", Description: "Echoes its input.", Metadata: json.RawMessage(`{"mcp.expose":true}`),
		Handler: func(_ context.Context, req iii.Request) (any, error) {
			return map[string]any{"echoed": json.RawMessage(req.Data)}, nil
		}})
	c.Start()
	t.Cleanup(func() { c.Close() })
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		res, err := c.Call(ctx, "engine::functions::list", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res), `"authtest::echo"`) {
			return
		}
		select { // the registration is on its way to the engine's list
		case <-ctx.Done():
			t.Fatal("authtest::echo never listed by the engine")
		case <-time.After(20 * time.Millisecond): // paces the asking; ctx decides
		}
	}
}

// The done-when test of issue 27's authentication: the official MCP
// TypeScript client, over Streamable HTTP, gets 401 without a token,
// reads with a read-scoped token and calls a tool only with a tool-scoped
// one; and the same with OAuth access tokens it gets itself from a test
// authorization server on loopback, found from the 401's
// resource_metadata (client_credentials).
func TestMCPClientWithAuthentication(t *testing.T) {
	bin, config, _ := mcpFixture(t)
	const readToken, toolToken = "interop-read-0123456789abcdef", "interop-tool-0123456789abcdef"
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("reader skills:read "+readToken+"\ntooler skills:read,skills:tools "+toolToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	as := oauthtest.NewServer()
	t.Cleanup(as.Close)
	as.AddClient("reader-app", "reader-secret", "skills:read")
	as.AddClient("tooler-app", "tooler-secret", "skills:read", "skills:tools")
	url, engineURL := startMCPHTTP(t, bin, "--config", config, "--auth-tokens", tokens, "--oauth-issuer", as.URL, "--oauth-jwks", as.JWKSURL())
	exposeEcho(t, engineURL)

	seen := runAuthClient(t, url, "none", "authtest__echo")
	if e := seen.ConnectError; e == nil || e.Code != 401 || !strings.Contains(e.Message, "needs a bearer token: send Authorization: Bearer <token>") {
		t.Errorf("without a token: %+v; want the connection refused with 401 saying a bearer token is needed", e)
	}

	for _, tc := range []struct {
		what  string
		args  []string
		tools bool // whether the token grants skills:tools
	}{
		{"a read-scoped static token", []string{url, "token", "authtest__echo", readToken}, false},
		{"a tool-scoped static token", []string{url, "token", "authtest__echo", toolToken}, true},
		// Both clients ask for both scopes; the authorization server grants
		// each what it may have.
		{"a read-scoped OAuth token", []string{url, "oauth", "authtest__echo", as.URL, "reader-app", "reader-secret", "skills:read skills:tools"}, false},
		{"a tool-scoped OAuth token", []string{url, "oauth", "authtest__echo", as.URL, "tooler-app", "tooler-secret", "skills:read skills:tools"}, true},
	} {
		seen := runAuthClient(t, tc.args...)
		if seen.ConnectError != nil {
			t.Errorf("with %s: the connection failed: %+v", tc.what, seen.ConnectError)
			continue
		}
		if !slices.Contains(seen.Resources, "iii://pdf-forms") || !seen.Search {
			t.Errorf("with %s: resources %v, search answered %v; want the skills read and searched", tc.what, seen.Resources, seen.Search)
		}
		switch {
		case !tc.tools && !slices.Equal(seen.Tools, []string{"skill__fetch", "skill__search"}):
			t.Errorf("with %s: tools %v; want skill__fetch and skill__search only", tc.what, seen.Tools)
		case !tc.tools && (seen.Call.Error == nil || !strings.Contains(seen.Call.Error.Message, "needs the scope skills:tools")):
			t.Errorf("with %s: calling authtest__echo gave %+v; want an error naming the scope skills:tools", tc.what, seen.Call)
		case tc.tools && !slices.Contains(seen.Tools, "authtest__echo"):
			t.Errorf("with %s: tools %v; want authtest__echo among them", tc.what, seen.Tools)
		case tc.tools && (seen.Call.Error != nil || seen.Call.IsError || !strings.Contains(seen.Call.Text, `"from":"interop"`)):
			t.Errorf("with %s: calling authtest__echo gave %+v; want its echo", tc.what, seen.Call)
		}
	}
}
