package worker

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionCount is how many MCP sessions server holds.
func sessionCount(server *mcp.Server) int {
	n := 0
	for range server.Sessions() {
		n++
	}
	return n
}

// An MCP session that gets no request for httpSessionIdle is closed, so
// abandoned sessions do not pile up; its client is told the session is
// gone on its next request.
func TestHTTPSessionsExpireWhenIdle(t *testing.T) {
	defer func(d time.Duration) { httpSessionIdle = d }(httpSessionIdle)
	httpSessionIdle = 200 * time.Millisecond
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hs := httptest.NewServer(httpHandler(server))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close() //nolint:errcheck // the session is gone by then
	if n := sessionCount(server); n != 1 {
		t.Fatalf("%d sessions after one initialize, want 1", n)
	}
	for sessionCount(server) != 0 {
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

// A request a browser sends from another origin is refused with 403,
// before the SDK sees it (the MCP specification asks servers to validate
// Origin); a client that is not a browser, which sends no Origin, is
// served as before.
func TestHTTPRefusesAForeignOrigin(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hs := httptest.NewServer(httpHandler(server))
	defer hs.Close()
	defer func() { // the two sessions served are never used again
		for ss := range server.Sessions() {
			ss.Close() //nolint:errcheck // test teardown
		}
	}()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	post := func(origin string) int {
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("http://evil.example"); code != http.StatusForbidden {
		t.Errorf("POST with Origin http://evil.example: status %d, want 403", code)
	}
	if code := post(""); code != http.StatusOK {
		t.Errorf("POST without Origin: status %d, want 200", code)
	}
	if code := post(hs.URL); code != http.StatusOK {
		t.Errorf("POST with the server's own Origin: status %d, want 200", code)
	}
}
