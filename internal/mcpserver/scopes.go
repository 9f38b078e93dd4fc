package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The scopes a token may grant a client of skills mcp over HTTP
// (docs/mcp.md, "Authentication"). Over stdio, and over HTTP without
// authentication, there are no scopes and nothing is checked.
const (
	// ScopeRead reads the registry: resources, prompts, completions, the
	// MCP Skills extension and the registry's own tools skill__fetch and
	// skill__search. Every request needs it.
	ScopeRead = "skills:read"
	// ScopeTools lists and calls the other tools: the typed tools of
	// SKILL.md and the functions other workers expose to MCP.
	ScopeTools = "skills:tools"
)

// Scopes are every scope, ScopeRead first.
var Scopes = []string{ScopeRead, ScopeTools}

// Scoped makes the bridge check each request's scopes, the ones the
// bearer token that authenticated it grants (mcp.RequestExtra.TokenInfo,
// set by the HTTP server's authentication): without ScopeRead nothing but
// initialize and ping is answered; without ScopeTools, tools/list lists
// only skill__fetch and skill__search and tools/call of any other tool is
// an error naming the scope. A request with no token info has no scopes.
func Scoped() Option {
	return func(b *Bridge) { b.scoped = true }
}

// checkScopes is the receiving middleware of Scoped, outside every other
// (it runs first), so the check is made once for every handler.
func (b *Bridge) checkScopes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		granted := grantedScopes(req)
		switch {
		case method == "initialize" || method == "ping" || strings.HasPrefix(method, "notifications/"):
			return next(ctx, method, req)
		case !slices.Contains(granted, ScopeRead):
			return nil, scopeError(method, "", ScopeRead, granted)
		case slices.Contains(granted, ScopeTools):
			return next(ctx, method, req)
		}
		switch r := req.(type) {
		case *mcp.CallToolRequest:
			if r.Params != nil && !nativeTool(r.Params.Name) {
				return nil, scopeError(method, r.Params.Name, ScopeTools, granted)
			}
		case *mcp.ListToolsRequest:
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				read := *list
				read.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !nativeTool(t.Name) })
				return &read, nil
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// grantedScopes are the scopes of the token that authenticated req.
func grantedScopes(req mcp.Request) []string {
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo.Scopes
	}
	return nil
}

// scopeError is a request refused for want of scope: invalid params, as
// for a tool that is not listed, naming the scope and how to get it.
func scopeError(method, tool, scope string, granted []string) error {
	what := method
	if tool != "" {
		what = fmt.Sprintf("%s of %q", method, tool)
	}
	has := "none"
	if len(granted) > 0 {
		has = strings.Join(granted, " ")
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"%s needs the scope %s, which this bearer token lacks (it grants: %s); ask the operator for a token with %s",
		what, scope, has, scope)}
}
