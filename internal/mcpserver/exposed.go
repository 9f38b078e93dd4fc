package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/iii-hq/skills-go/internal/contract"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Functions other workers expose to MCP (metadata "mcp.expose": true, or
// {"mcp": {"expose": true}}, the iii mcp worker's convention; approved
// typed tools among them, D36) become MCP tools named as that worker names
// them: every "::" becomes "__". The registry's own fetch and search are
// served natively, and the namespaces the mcp worker hides are left out.
// Both tools/list and tools/call read the engine's function list when
// they are asked, so a function that has gone is neither listed nor
// called.

// native are exposed functions the bridge serves itself, by their tool
// names.
var native = map[string]string{contract.FnSkillFetch: "skill__fetch", contract.FnSkillSearch: "skill__search"}

// nativeTool reports whether name is a tool the SDK serves (addTools).
func nativeTool(name string) bool {
	return name == native[contract.FnSkillFetch] || name == native[contract.FnSkillSearch]
}

type functionRow struct {
	ID          string          `json:"function_id"`
	Description string          `json:"description"`
	Metadata    json.RawMessage `json:"metadata"`
}

type functionDetail struct {
	ID            string          `json:"function_id"`
	RequestSchema json.RawMessage `json:"request_schema"`
}

// exposedToMCP reports whether MCP clients may run f: its metadata asks
// for exposure and it is in none of the engine's or the registry's
// namespaces. It is the one rule of tools/call and of iii://fn sections
// (sections.go).
func exposedToMCP(f functionRow) bool {
	return exposed(f.Metadata) && !contract.IsInternal(f.ID)
}

// exposed reports whether metadata asks for MCP exposure.
func exposed(metadata json.RawMessage) bool {
	var m struct {
		Dotted bool `json:"mcp.expose"`
		MCP    struct {
			Expose bool `json:"expose"`
		} `json:"mcp"`
	}
	return json.Unmarshal(metadata, &m) == nil && (m.Dotted || m.MCP.Expose)
}

// exposedFunctions lists the functions served as tools, sorted by id.
func (b *Bridge) exposedFunctions(ctx context.Context) ([]functionRow, error) {
	all, err := b.functions(ctx)
	if err != nil {
		return nil, err
	}
	return exposedOf(all), nil
}

// functions is the engine's function list.
func (b *Bridge) functions(ctx context.Context) ([]functionRow, error) {
	var list struct {
		Functions []functionRow `json:"functions"`
	}
	if err := b.call(ctx, fnFunctionsList, map[string]any{}, &list); err != nil {
		return nil, err
	}
	return list.Functions, nil
}

// exposedOf is the functions of all served as tools, sorted by id.
func exposedOf(all []functionRow) []functionRow {
	out := slices.DeleteFunc(slices.Clone(all), func(f functionRow) bool {
		_, isNative := native[f.ID]
		return isNative || !exposedToMCP(f) || strings.Contains(f.ID, "__")
	})
	slices.SortFunc(out, func(a, b functionRow) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// listTools answers tools/list: the SDK's own tools (skill__fetch and
// skill__search, through next) and every exposed function, by name.
func (b *Bridge) listTools(ctx context.Context, cursor string, next mcp.MethodHandler, req *mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	all := func(ctx context.Context, _ string) ([]*mcp.Tool, string, error) {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: req.Session, Extra: req.Extra, Params: &mcp.ListToolsParams{}})
		if err != nil {
			return nil, "", err
		}
		tools := slices.DeleteFunc(slices.Clone(res.(*mcp.ListToolsResult).Tools), func(t *mcp.Tool) bool { return t.Name == placeholder })
		fns, err := b.exposedFunctions(ctx)
		if err != nil {
			return nil, "", err
		}
		schemas, err := b.requestSchemas(ctx, fns)
		if err != nil {
			return nil, "", err
		}
		for _, f := range fns {
			tools = append(tools, &mcp.Tool{Name: toolName(f.ID), Description: f.Description, InputSchema: inputSchema(schemas[f.ID])})
		}
		slices.SortFunc(tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
		return tools, "", nil
	}
	if b.pageSize == 0 {
		cursor = "" // one page: there is no other
	}
	tools, nextCursor, err := paged(ctx, b.pageSize, cursor, all)
	if err != nil {
		return nil, protocolError(err)
	}
	if tools == nil {
		tools = []*mcp.Tool{}
	}
	return &mcp.ListToolsResult{Tools: tools, NextCursor: nextCursor, Cacheable: live0}, nil
}

// requestSchemas are the request schemas of fns, by id.
func (b *Bridge) requestSchemas(ctx context.Context, fns []functionRow) (map[string]json.RawMessage, error) {
	schemas := map[string]json.RawMessage{}
	if len(fns) == 0 {
		return schemas, nil
	}
	ids := make([]string, len(fns))
	for i, f := range fns {
		ids[i] = f.ID
	}
	var info struct {
		Functions []functionDetail `json:"functions"`
	}
	if err := b.call(ctx, fnFunctionsInfo, map[string]any{"function_ids": ids}, &info); err != nil {
		return nil, err
	}
	for _, d := range info.Functions {
		schemas[d.ID] = d.RequestSchema
	}
	return schemas, nil
}

// toolName is the mcp worker's name for a function: "::" becomes "__".
func toolName(id string) string { return strings.ReplaceAll(id, "::", "__") }

// callExposed answers tools/call of an exposed function's tool: the
// function is called with the tool's arguments; its result is the tool's
// structured content and text, its error the tool's error result. A name
// that is no exposed function's is invalid params, as the SDK answers an
// unknown tool.
func (b *Bridge) callExposed(ctx context.Context, params *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	fns, err := b.exposedFunctions(ctx)
	if err != nil {
		return toolError(err), nil
	}
	i := slices.IndexFunc(fns, func(f functionRow) bool { return toolName(f.ID) == params.Name })
	if i < 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("unknown tool %q; tools/list gives the tools served", params.Name)}
	}
	args := params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	res, err := b.caller.Call(ctx, fns[i].ID, args)
	if err != nil {
		return toolError(b.unreachable(fns[i].ID, err)), nil
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res)}}}
	var structured map[string]any
	if json.Unmarshal(res, &structured) == nil {
		out.StructuredContent = structured
	}
	return out, nil
}
