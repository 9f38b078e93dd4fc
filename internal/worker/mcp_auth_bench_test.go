package worker

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/mcpauth"
	"github.com/iii-hq/skills-go/internal/mcpauth/oauthtest"
	"github.com/iii-hq/skills-go/internal/mcpserver"
)

// BenchmarkHTTPTokenValidation measures what checking a bearer token adds
// to one MCP request over Streamable HTTP (a ping on an open session):
// the same request to the same server without authentication, with a
// static token and with an OAuth JWT (ES256, keys cached), interleaved in
// one run. It reports each one's time and their ratios to the request
// without authentication (BENCHMARKS.md).
func BenchmarkHTTPTokenValidation(b *testing.B) {
	ctx := context.Background()
	as := oauthtest.NewServer()
	defer as.Close()
	tokens, err := mcpauth.ParseTokens("bench", "reader skills:read "+readToken, mcpserver.Scopes, mcpserver.ScopeRead)
	if err != nil {
		b.Fatal(err)
	}
	jwtCheck, err := mcpauth.NewJWT(mcpauth.JWTOptions{Issuer: as.URL, JWKSURL: as.JWKSURL()})
	if err != nil {
		b.Fatal(err)
	}
	session := func(auth *mcpauth.Config, token func(endpoint string) string) *mcp.ClientSession {
		server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		hs := serveAt(b, func(endpoint string) http.Handler { return httpHandler(server, authConfig(b, auth), endpoint) })
		endpoint := hs.URL + "/mcp"
		cs, err := connectWith(ctx, endpoint, token(endpoint))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() }) //nolint:errcheck // bench teardown
		return cs
	}
	modes := []struct {
		name string
		cs   *mcp.ClientSession
		d    time.Duration
	}{
		{name: "none", cs: session(nil, func(string) string { return "" })},
		{name: "static", cs: session(&mcpauth.Config{Tokens: tokens, Required: mcpserver.ScopeRead, Scopes: mcpserver.Scopes},
			func(string) string { return readToken })},
		{name: "jwt", cs: session(&mcpauth.Config{JWT: jwtCheck, Required: mcpserver.ScopeRead, Scopes: mcpserver.Scopes},
			func(endpoint string) string { return as.Issue(endpoint, "bench", mcpserver.ScopeRead) })},
	}
	for i := range modes { // warm: connections, the JWKS cache
		if err := modes[i].cs.Ping(ctx, nil); err != nil {
			b.Fatalf("%s: %v", modes[i].name, err)
		}
	}
	n := 0
	for b.Loop() {
		for i := range modes {
			start := time.Now()
			if err := modes[i].cs.Ping(ctx, nil); err != nil {
				b.Fatalf("%s: %v", modes[i].name, err)
			}
			modes[i].d += time.Since(start)
		}
		n++
	}
	none := float64(modes[0].d) / float64(n)
	for _, m := range modes {
		per := float64(m.d) / float64(n)
		b.ReportMetric(per/1e3, "µs/"+m.name)
		if m.name != "none" {
			b.ReportMetric(per/none, m.name+"/none")
			b.ReportMetric((per-none)/1e3, "µs-added/"+m.name)
		}
	}
}
