package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/iii-hq/skills-go/internal/contract"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP Skills extension (SEP-2640, docs/decisions.md D45). Its files
// are resources (skill://<id>/<file>, read through the template the
// bridge adds); its methods, skills/list, skills/get and
// resources/directory/read, are the SDK's custom methods
// (mcp.AddReceivingCustomMethod), so they reach the bridge through the
// SDK on every transport, as MCP's own methods do (docs/mcp.md).

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

// extParams are the params of the extension's methods: a listing's
// cursor, a skill's or a directory's uri.
type extParams struct {
	mcp.ParamsBase
	Cursor *string `json:"cursor"`
	URI    *string `json:"uri"`
}

// UnmarshalJSON says what params the extension takes when they are not an
// object (the SDK answers -32602 with this message).
func (p *extParams) UnmarshalJSON(b []byte) error {
	type plain extParams
	if err := json.Unmarshal(b, (*plain)(p)); err != nil {
		return fmt.Errorf("params must be an object with an optional cursor and uri: %w", err)
	}
	return nil
}

// extResult is the registry's result passed on as it came, each field
// raw, so no number in a frontmatter goes through a float64.
type extResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

// MarshalJSON writes the registry's result.
func (r *extResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// addExtension registers the extension's methods with the SDK's server.
func (b *Bridge) addExtension() {
	for _, method := range []string{MethodSkillsList, MethodSkillsGet, MethodDirRead} {
		err := mcp.AddReceivingCustomMethod(b.server, method, func(ctx context.Context, _ *mcp.ServerSession, p *extParams) (*extResult, error) {
			if p == nil {
				p = &extParams{}
			}
			raw, err := b.extension(ctx, method, *p)
			if err != nil {
				return nil, err
			}
			return &extResult{raw: raw}, nil
		})
		if err != nil { // only a standard method's name is refused: a wiring mistake
			panic("mcpserver: " + err.Error())
		}
	}
}

func (b *Bridge) extension(ctx context.Context, method string, in extParams) (json.RawMessage, error) {
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
