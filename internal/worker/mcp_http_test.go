package worker

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testHTTPConfig is opts checked, for a test.
func testHTTPConfig(t testing.TB, opts HTTPOptions) httpConfig {
	t.Helper()
	c, err := opts.check()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// initializeBody is an MCP initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// newMCPRequest is a request to url as a Streamable HTTP client makes
// it: body (none if empty) is a POST's, else it is a GET of the stream.
func newMCPRequest(t *testing.T, url, body string) *http.Request {
	t.Helper()
	method, reader := http.MethodGet, io.Reader(nil)
	if body != "" {
		method, reader = http.MethodPost, strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, reader)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req
}

// testHandler serves httpHandler over a bare MCP server with opts until
// the test ends, when it closes the sessions left.
func testHandler(t *testing.T, opts HTTPOptions) (*mcp.Server, *httptest.Server) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hs := httptest.NewServer(httpHandler(server, testHTTPConfig(t, opts), ""))
	t.Cleanup(func() {
		hs.Close()
		for ss := range server.Sessions() {
			ss.Close() //nolint:errcheck // test teardown
		}
	})
	return server, hs
}

// sessionCount is how many MCP sessions server holds.
func sessionCount(server *mcp.Server) int {
	n := 0
	for range server.Sessions() {
		n++
	}
	return n
}

// holdsSession reports whether server holds the session id.
func holdsSession(server *mcp.Server, id string) bool {
	for ss := range server.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// An MCP session that gets no request for httpSessionIdle is closed, so
// abandoned sessions do not pile up; its client is told the session is
// gone on its next request.
func TestHTTPSessionsExpireWhenIdle(t *testing.T) {
	defer func(d time.Duration) { httpSessionIdle = d }(httpSessionIdle)
	httpSessionIdle = 200 * time.Millisecond
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hs := httptest.NewServer(httpHandler(server, testHTTPConfig(t, HTTPOptions{}), ""))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close() //nolint:errcheck // the session is gone by then
	// The client's own session, by its id: the SDK's client opens a short
	// session of its own for its server/discover probe before it
	// initializes, which the server closes on its own time, so the count
	// of sessions right after Connect may be 2.
	id := cs.ID()
	if !holdsSession(server, id) {
		t.Fatalf("the server holds no session %q after initialize", id)
	}
	for holdsSession(server, id) {
		select {
		case <-ctx.Done():
			t.Fatalf("the idle session was never closed (timeout %s)", httpSessionIdle)
		case <-time.After(10 * time.Millisecond): // paces the asking; ctx decides
		}
	}
	if err := cs.Ping(ctx, nil); err == nil {
		t.Error("a ping on the expired session succeeded; want an error")
	}
}

// A request carrying an Origin not on the allow-list (none by default)
// is refused with 403 naming the origin and the flag that allows it, on
// every method, the SSE GET included (the MCP specification asks servers
// to validate Origin); the server's own origin is no exception. A client
// that is not a browser, which sends no Origin, is served as before, and
// so is a listed origin, in any spelling of it.
func TestHTTPRefusesAnOriginNotAllowed(t *testing.T) {
	_, hs := testHandler(t, HTTPOptions{AllowOrigins: []string{"https://App.example:443/"}})
	do := func(req *http.Request, origin string) (int, string) {
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.Header.Get("Content-Type") == "text/event-stream" {
			return res.StatusCode, "" // the GET stream, which lasts
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, string(body)
	}
	res, err := hs.Client().Do(newMCPRequest(t, hs.URL+"/mcp", initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	session := res.Header.Get("Mcp-Session-Id")
	get := func() *http.Request {
		req := newMCPRequest(t, hs.URL+"/mcp", "")
		req.Header.Set("Mcp-Session-Id", session)
		return req
	}
	for _, origin := range []string{"http://evil.example", hs.URL, "null"} {
		for method, req := range map[string]*http.Request{"POST": newMCPRequest(t, hs.URL+"/mcp", initializeBody), "GET": get()} {
			code, body := do(req, origin)
			if code != http.StatusForbidden || !strings.Contains(body, fmt.Sprintf("Origin %q is not allowed", origin)) || !strings.Contains(body, "--allow-origin") {
				t.Errorf("%s with Origin %s: %d %q; want 403 naming the origin and --allow-origin", method, origin, code, body)
			}
		}
	}
	for _, origin := range []string{"", "https://app.example", "HTTPS://APP.EXAMPLE"} {
		if code, body := do(newMCPRequest(t, hs.URL+"/mcp", initializeBody), origin); code != http.StatusOK {
			t.Errorf("POST with Origin %q: %d %q, want 200", origin, code, body)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel() // ends the GET stream
	if code, body := do(get().WithContext(ctx), "https://app.example"); code != http.StatusOK {
		t.Errorf("GET with an allowed Origin: %d %q, want 200", code, body)
	}
}

// An allowed origin that is not one is refused at start, naming it.
func TestHTTPOptionsRefuseABadOrigin(t *testing.T) {
	for _, bad := range []string{"app.example", "https://app.example/path", "https://app.example?q", "null", "*"} {
		_, err := HTTPOptions{AllowOrigins: []string{bad}}.check()
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q is not an origin", bad)) {
			t.Errorf("AllowOrigins %q: %v; want an error naming it", bad, err)
		}
	}
}

// A request reaching the server on loopback whose Host is not a loopback
// name or IP, as a page's after DNS rebinding, is refused with 403
// naming the Host, whatever its path; localhost, 127.0.0.1 and [::1]
// pass.
func TestHTTPRefusesAForeignHostOnLoopback(t *testing.T) {
	_, hs := testHandler(t, HTTPOptions{})
	_, port, _ := net.SplitHostPort(hs.Listener.Addr().String())
	for _, tc := range []struct {
		host, path string
		want       int
	}{
		{"evil.example:" + port, "/mcp", http.StatusForbidden},
		{"evil.example:" + port, "/nothing", http.StatusForbidden},
		{"evil.example", "/mcp", http.StatusForbidden},
		{"localhost:" + port, "/mcp", http.StatusOK},
		{"127.0.0.1:" + port, "/mcp", http.StatusOK},
		{"[::1]:" + port, "/mcp", http.StatusOK},
	} {
		req := newMCPRequest(t, hs.URL+tc.path, initializeBody)
		req.Host = tc.host
		res, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("Host %s %s: %d %q, want %d", tc.host, tc.path, res.StatusCode, body, tc.want)
		} else if tc.want == http.StatusForbidden && !strings.Contains(string(body), fmt.Sprintf("Host %q is not this server's", tc.host)) {
			t.Errorf("Host %s: %q; want a message naming it", tc.host, body)
		}
	}
}
