package worker

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpauth"
	"github.com/iii-hq/skills-go/internal/mcpserver"
)

const (
	readToken = "read-0123456789abcdef0123"
	toolToken = "tool-0123456789abcdef0123"
)

// authConfig is the HTTP server's default config with auth as its
// authentication.
func authConfig(t testing.TB, auth *mcpauth.Config) httpConfig {
	c := testHTTPConfig(t, HTTPOptions{})
	c.auth = auth
	return c
}

// testAuth is an authentication config of two static tokens: readToken
// (skills:read) and toolToken (skills:read and skills:tools).
func testAuth(t *testing.T) *mcpauth.Config {
	t.Helper()
	tokens, err := mcpauth.ParseTokens("test", "reader skills:read "+readToken+"\ntooler skills:read,skills:tools "+toolToken, mcpserver.Scopes, mcpserver.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	return &mcpauth.Config{Tokens: tokens, Required: mcpserver.ScopeRead, Scopes: mcpserver.Scopes}
}

// serveAt serves over HTTP, on loopback until the test ends, the handler
// made for the endpoint it is served at (http://127.0.0.1:<port>/mcp).
func serveAt(tb testing.TB, handler func(endpoint string) http.Handler) *httptest.Server {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(handler("http://" + ln.Addr().String() + "/mcp"))
	hs.Listener.Close() //nolint:errcheck // replaced by ln
	hs.Listener = ln
	hs.Start()
	tb.Cleanup(hs.Close)
	return hs
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectWith opens an MCP session to endpoint with token ("" for none).
func connectWith(ctx context.Context, endpoint, token string) (*mcp.ClientSession, error) {
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	return mcp.NewClient(&mcp.Implementation{Name: "auth-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
}

func toolNames(ctx context.Context, t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// Over HTTP with static tokens: no token, no session; a read-scoped token
// reads and lists only the registry's own tools, and calling another is an
// error naming skills:tools; a tool-scoped token lists and calls it.
func TestMCPServerOverHTTPWithTokens(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	dev := startDev(ctx, t)
	engineURL := dev.URL()
	endpoints := make(chan string, 1)
	s, err := NewMCPServer(MCPOptions{Dev: dev, HTTP: "127.0.0.1:0", Endpoint: func(url string) { endpoints <- url },
		Auth: testAuth(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) //nolint:errcheck // test teardown
	go s.Run(context.Background())  //nolint:errcheck // Close stops it
	var endpoint string
	select {
	case endpoint = <-endpoints:
	case <-ctx.Done():
		t.Fatal("the server never said where it serves")
	}

	// A function another worker exposes to MCP: the tool to call.
	fn := iii.New(iii.Options{URL: engineURL, Name: "auth-echo"})
	fn.RegisterFunction(iii.Function{ID: "authtest::echo", Description: "Echoes.", Metadata: json.RawMessage(`{"mcp.expose":true}`),
		Handler: func(_ context.Context, req iii.Request) (any, error) {
			return map[string]any{"echo": string(req.Data)}, nil
		}})
	fn.Start()
	t.Cleanup(func() { fn.Close() }) //nolint:errcheck // test teardown

	if _, err := connectWith(ctx, endpoint, ""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("connecting without a token: %v; want 401 Unauthorized", err)
	}
	if _, err := connectWith(ctx, endpoint, "no-such-token-0123456789"); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("connecting with an unknown token: %v; want 401 Unauthorized", err)
	}

	tooler, err := connectWith(ctx, endpoint, toolToken)
	if err != nil {
		t.Fatal(err)
	}
	defer tooler.Close() //nolint:errcheck // test teardown
	for !slices.Contains(toolNames(ctx, t, tooler), "authtest__echo") {
		select { // the function's registration reaches the engine's list
		case <-ctx.Done():
			t.Fatalf("authtest__echo never listed for the tool-scoped token: %v", toolNames(ctx, t, tooler))
		case <-time.After(20 * time.Millisecond): // paces the asking; ctx decides
		}
	}
	res, err := tooler.CallTool(ctx, &mcp.CallToolParams{Name: "authtest__echo", Arguments: map[string]any{"x": 1}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call with skills:tools = %+v, %v; want the echo", res, err)
	}

	reader, err := connectWith(ctx, endpoint, readToken)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close() //nolint:errcheck // test teardown
	if uris := resourceURIs(ctx, t, reader); !slices.Contains(uris, "iii://skills") {
		t.Errorf("resources for the read-scoped token = %v; want the index", uris)
	}
	if names := toolNames(ctx, t, reader); !slices.Equal(names, []string{"skill__fetch", "skill__search"}) {
		t.Errorf("tools for the read-scoped token = %v; want skill__fetch and skill__search only", names)
	}
	if res, err := reader.CallTool(ctx, &mcp.CallToolParams{Name: "skill__search", Arguments: map[string]any{"query": "anything"}}); err != nil || res.IsError {
		t.Errorf("skill__search with skills:read = %+v, %v; want it answered", res, err)
	}
	_, err = reader.CallTool(ctx, &mcp.CallToolParams{Name: "authtest__echo", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `tools/call of "authtest__echo" needs the scope skills:tools, which this bearer token lacks (it grants: skills:read)`) {
		t.Errorf("tools/call without skills:tools = %v; want an error naming the scope", err)
	}
}

// A flood of initialize requests without a valid token over real HTTP
// makes no MCP session: each is refused with 401 before the SDK sees it.
// The same requests with a token each make one.
func TestHTTPUnauthenticatedFloodMakesNoSession(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hs := serveAt(t, func(endpoint string) http.Handler { return httpHandler(server, authConfig(t, testAuth(t)), endpoint) })
	defer func() {
		for ss := range server.Sessions() {
			ss.Close() //nolint:errcheck // test teardown
		}
	}()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	post := func(authorization string) int {
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		res, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close() //nolint:errcheck // test
		return res.StatusCode
	}
	for i := range 1000 {
		if code := post([]string{"", "Bearer not-a-token-0123456789", "Basic x"}[i%3]); code != http.StatusUnauthorized {
			t.Fatalf("request %d: %d; want 401", i, code)
		}
	}
	if n := sessionCount(server); n != 0 {
		t.Errorf("%d sessions after 1000 refused initialize requests; want 0", n)
	}
	if code := post("Bearer " + readToken); code != http.StatusOK || sessionCount(server) != 1 {
		t.Errorf("initialize with a token: %d, %d sessions; want 200 and 1 session", code, sessionCount(server))
	}
}
