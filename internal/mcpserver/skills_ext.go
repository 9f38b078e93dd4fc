package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/iii-hq/skills-go/internal/contract"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP Skills extension (SEP-2640, docs/decisions.md D45). Its files
// are resources (skill://<id>/<file>, read through the template the
// bridge adds); its two methods, skills/list and skills/get, are not
// methods the Go SDK v1.8.0 knows: its server refuses an unknown method
// before any middleware sees it. So the bridge answers them below the
// SDK, on the connection: Transport wraps a transport for stdio, and
// HTTPHandler wraps the Streamable HTTP handler (docs/mcp.md).

// ExtensionID names the extension in the server's capabilities.
const ExtensionID = "io.modelcontextprotocol/skills"

// The extension's methods.
const (
	MethodSkillsList = "skills/list"
	MethodSkillsGet  = "skills/get"
	MethodDirRead    = "resources/directory/read" // the extension's, behind directoryRead
)

// skillScheme prefixes the extension's file URIs.
const skillScheme = "skill://"

// MaxPageSize is the largest page skills/list asks the registry for.
const MaxPageSize = 100000

// extensionMethod reports whether method is one the bridge answers itself.
func extensionMethod(method string) bool {
	return method == MethodSkillsList || method == MethodSkillsGet || method == MethodDirRead
}

// answer handles one call of the extension's: the response to
// write, its result or a JSON-RPC error.
func (b *Bridge) answer(ctx context.Context, req *jsonrpc.Request) *jsonrpc.Response {
	result, err := b.extension(ctx, req.Method, req.Params)
	if err != nil {
		return &jsonrpc.Response{ID: req.ID, Error: err}
	}
	return &jsonrpc.Response{ID: req.ID, Result: result}
}

func (b *Bridge) extension(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Cursor *string `json:"cursor"`
		URI    *string `json:"uri"`
	}
	if p := bytes.TrimSpace(params); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		if err := json.Unmarshal(p, &in); err != nil {
			return nil, invalidParams("%s: params must be an object: %v", method, err)
		}
	}
	// The registry's result is passed on as it came, each field raw, so no
	// number in a frontmatter goes through a float64.
	var out map[string]json.RawMessage
	switch method {
	case MethodSkillsList:
		if err := b.call(ctx, contract.FnMCPSkillsList, b.paged(map[string]any{}, in.Cursor), &out); err != nil {
			return nil, registryError(err)
		}
	case MethodSkillsGet:
		if in.URI == nil || *in.URI == "" {
			return nil, invalidParams("skills/get: params.uri is required: the skill://<id>/SKILL.md URI of a skill")
		}
		if err := b.call(ctx, contract.FnMCPSkillsGet, map[string]string{"uri": *in.URI}, &out); err != nil {
			return nil, registryError(err)
		}
	case MethodDirRead:
		if in.URI == nil || *in.URI == "" {
			return nil, invalidParams("resources/directory/read: params.uri is required: a directory of a skill, skill://<id> or skill://<id>/<folder>")
		}
		if err := b.call(ctx, contract.FnMCPSkillsDir, b.paged(map[string]any{"uri": *in.URI}, in.Cursor), &out); err != nil {
			return nil, registryError(err)
		}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
	}
	// A live catalog: an entry is stale at once (hosts verify digests and
	// re-get on a mismatch), and the same for every client.
	if out == nil { // a null result from whatever answered the call
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: method + ": the registry returned no result"}
	}
	out["resultType"] = json.RawMessage(`"complete"`)
	if method != MethodDirRead { // a directory read is not a cacheable result
		out["ttlMs"], out["cacheScope"] = json.RawMessage(`0`), json.RawMessage(`"public"`)
	}
	return json.Marshal(out)
}

// paged adds to a listing's payload the client's cursor and the bridge's
// page size.
func (b *Bridge) paged(payload map[string]any, cursor *string) map[string]any {
	if cursor != nil && *cursor != "" {
		payload["cursor"] = *cursor
	}
	if b.pageSize > 0 {
		payload["limit"] = min(b.pageSize, MaxPageSize)
	}
	return payload
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// registryError maps a registry error to the extension's codes: an unknown
// skill and a bad argument are -32602, as the extension asks; anything
// else (the engine away, a function missing) is an internal error that
// names it.
func registryError(err error) *jsonrpc.Error {
	je, _ := protocolError(err).(*jsonrpc.Error)
	return je
}

// readSkillFile answers resources/read of a skill:// URI.
func (b *Bridge) readSkillFile(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var out mcp.ReadResourceResult
	if err := b.call(ctx, contract.FnMCPSkillsRead, map[string]string{"uri": req.Params.URI}, &out); err != nil {
		return nil, resourceError(err, req.Params.URI)
	}
	return &out, nil
}
