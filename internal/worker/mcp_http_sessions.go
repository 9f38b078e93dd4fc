package worker

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionCap caps the MCP sessions a Streamable HTTP server holds
// (50,000 initialize requests once held 750 MB; issue 27). A POST without
// an Mcp-Session-Id header is what makes the SDK open a session, so such
// a request beyond the cap is refused with 503 before the SDK sees it;
// the sessions already open are served as before. Refusing rather than
// closing an older session keeps whoever holds a session working; the
// SDK closes sessions idle for httpSessionIdle, which frees room
// (docs/decisions.md D63).
type sessionCap struct {
	server *mcp.Server
	max    int
	next   http.Handler

	mu      sync.Mutex
	opening int // new-session requests being served, not yet all counted in server.Sessions
}

func newSessionCap(server *mcp.Server, max int, next http.Handler) *sessionCap {
	return &sessionCap{server: server, max: max, next: next}
}

func (c *sessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		c.next.ServeHTTP(w, r)
		return
	}
	// A session being opened is counted twice once the SDK holds it,
	// until its request ends: under a burst the cap errs on refusing.
	c.mu.Lock()
	held := c.opening
	for range c.server.Sessions() {
		held++
	}
	if held >= c.max {
		c.mu.Unlock()
		refuseSession(w, c.max)
		return
	}
	c.opening++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.opening--
		c.mu.Unlock()
	}()
	c.next.ServeHTTP(w, r)
}

// refuseSession answers a new session beyond the cap max: 503, with a
// JSON-RPC error (the request's id is not read; JSON-RPC allows null)
// naming the limit and what frees room.
func refuseSession(w http.ResponseWriter, max int) {
	msg := fmt.Sprintf("skills mcp holds %d sessions, its limit (--max-sessions %d): no new session until one ends or has been idle for %s; try again later",
		max, max, httpSessionIdle)
	quoted, _ := json.Marshal(msg) // a string always encodes
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "60")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":` + string(quoted) + `}}`)) //nolint:errcheck // the client may be gone
}
