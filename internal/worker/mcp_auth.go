package worker

import (
	"net/http"

	"github.com/iii-hq/skills-go/internal/mcpauth"
)

// withAuth is handler behind auth's bearer-token check (mcpauth.Guard),
// or handler itself when auth asks for none: then the server is served
// exactly as without authentication. endpoint is the MCP endpoint's URL,
// the resource URL OAuth tokens must name unless auth.Resource does.
func withAuth(handler http.Handler, auth *mcpauth.Config, endpoint string) http.Handler {
	if !auth.Enabled() {
		return handler
	}
	return auth.Guard(handler, endpoint)
}
