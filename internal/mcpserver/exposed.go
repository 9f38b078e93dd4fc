package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/contract"
)

// Functions other workers expose to MCP (metadata "mcp.expose": true, or
// {"mcp": {"expose": true}}, the iii mcp worker's convention; approved
// typed tools among them, D36) become MCP tools named as that worker names
// them: every "::" becomes "__". The registry's own fetch and search are
// served natively, and the namespaces the mcp worker hides are left out.

// native are exposed functions the bridge serves itself.
var native = map[string]bool{contract.FnSkillFetch: true, contract.FnSkillSearch: true}

type functionRow struct {
	ID          string          `json:"function_id"`
	Description string          `json:"description"`
	Metadata    json.RawMessage `json:"metadata"`
}

type functionDetail struct {
	ID            string          `json:"function_id"`
	RequestSchema json.RawMessage `json:"request_schema"`
	Error         string          `json:"error"`
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

// syncExposed brings the tools for exposed functions in step with the
// engine's function list.
func (b *Bridge) syncExposed(ctx context.Context) error {
	var list struct {
		Functions []functionRow `json:"functions"`
	}
	if err := b.call(ctx, "engine::functions::list", map[string]any{}, &list); err != nil {
		return err
	}
	want := map[string]functionRow{}
	for _, f := range list.Functions {
		if native[f.ID] || !exposed(f.Metadata) || contract.IsInternal(f.ID) {
			continue
		}
		want[f.ID] = f
	}
	var fresh []string
	for id := range want {
		if _, ok := b.tools[id]; !ok {
			fresh = append(fresh, id)
		}
	}
	schemas := map[string]json.RawMessage{}
	if len(fresh) > 0 {
		var info struct {
			Functions []functionDetail `json:"functions"`
		}
		if err := b.call(ctx, "engine::functions::info", map[string]any{"function_ids": fresh}, &info); err != nil {
			return err
		}
		for _, d := range info.Functions {
			schemas[d.ID] = d.RequestSchema
		}
	}
	for _, id := range fresh {
		f := want[id]
		b.tools[id] = true
		b.server.AddTool(&mcp.Tool{Name: toolName(id), Description: f.Description, InputSchema: inputSchema(schemas[id])}, b.callExposed(id))
	}
	var gone []string
	for id := range b.tools {
		if _, ok := want[id]; !ok {
			gone = append(gone, toolName(id))
			delete(b.tools, id)
		}
	}
	if len(gone) > 0 {
		b.server.RemoveTools(gone...)
	}
	return nil
}

// toolName is the mcp worker's name for a function: "::" becomes "__".
func toolName(id string) string { return strings.ReplaceAll(id, "::", "__") }

// inputSchema is a function's request schema when it is an object schema,
// else an open object (MCP requires an object).
func inputSchema(raw json.RawMessage) any {
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil && m["type"] == "object" {
		return m
	}
	return map[string]any{"type": "object"}
}

// callExposed calls the function with the tool's arguments; its result is
// the tool's structured content and text, an error the tool's error result.
func (b *Bridge) callExposed(id string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		res, err := b.caller.Call(ctx, id, args)
		if err != nil {
			return toolError(err), nil
		}
		out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res)}}}
		var structured map[string]any
		if json.Unmarshal(res, &structured) == nil {
			out.StructuredContent = structured
		}
		return out, nil
	}
}
