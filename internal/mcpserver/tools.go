package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/registry"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fetchInput is skill__fetch's input: the iii:// links to read, and the
// document relative links were written in (docs/decisions.md D70).
type fetchInput struct {
	URI  string   `json:"uri,omitempty" jsonschema:"one iii:// URI to read, or with base one link as written in that document"`
	URIs []string `json:"uris,omitempty" jsonschema:"several iii:// URIs (or with base links) to read at once; wins over uri when not empty"`
	Base string   `json:"base,omitempty" jsonschema:"the iii:// URI of the document the links were written in (the '# iii://…' heading above them); then uri and uris may be relative links exactly as written there: references/x.md, ./x.md, ../other-skill/SKILL.md, {baseDir}/scripts/x.py, #section"`
}

// fetchDescription is skill__fetch's description: skill::fetch's (0.2's,
// byte for byte), then how to follow a relative link.
const fetchDescription = "Fetches the content of one or more skill resources identified by iii:// URIs. When you encounter iii:// links in skill instructions, use this tool to retrieve their contents (batch with `uris` when helpful)." +
	" To follow a relative link in a skill (references/x.md, ./x.md, ../other-skill/SKILL.md, {baseDir}/scripts/x.py, #section), pass it exactly as written in `uri` or `uris` and the iii:// URI of the document it appears in (its `# iii://…` heading) in `base`; each answer is headed by the URI the link resolved to, the base for its own links."

// searchInput is skill__search's input schema: skill::search's fields,
// which the tool passes on as they came.
type searchInput struct {
	Query     string `json:"query" jsonschema:"what you need, in words: a task, a symptom, a tool name (1 to 1000 characters)"`
	Limit     *int   `json:"limit,omitempty" jsonschema:"how many results at most, 1 to 50 (default 8)"`
	MaxTokens *int   `json:"max_tokens,omitempty" jsonschema:"drop results from the end until the response fits this many tokens (at least 1)"`
	Group     *bool  `json:"group,omitempty" jsonschema:"true (the default): a result is a skill, with its matching reference files under it in matched; false: every document (a skill or one of its files) ranked on its own"`
}

// addTools registers skill__fetch and skill__search, the names the iii
// mcp worker gives skill::fetch and skill::search, with real input
// schemas. A registry error is the tool's error result, which the model
// reads; it is not a protocol error.
func addTools(b *Bridge) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	mcp.AddTool(b.server, &mcp.Tool{
		Name:        "skill__fetch",
		Title:       "Fetch skill",
		Description: fetchDescription,
		Annotations: readOnly,
		InputSchema: plainSchema[fetchInput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in fetchInput) (*mcp.CallToolResult, any, error) {
		payload := map[string]any{}
		var uri *string
		if in.URI != "" {
			payload["uri"], uri = in.URI, &in.URI
		}
		if len(in.URIs) > 0 {
			payload["uris"] = in.URIs
		}
		// What skill::fetch would read, checked all together before it
		// runs (sections.go); what it would refuse, it answers itself.
		// With a base, the sections are those written in full: a relative
		// link never resolves to one.
		uris, err := registry.FetchURIs(uri, in.URIs)
		if in.Base != "" {
			payload["base"] = in.Base
			uris, err = registry.FetchEntries(uri, in.URIs), nil
		}
		if err == nil {
			if err := b.allowSections(ctx, uris); err != nil {
				return toolError(err), nil, nil
			}
		}
		var text string
		if err := b.call(ctx, contract.FnSkillFetch, payload, &text); err != nil {
			return toolError(err), nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	// skill__search hands its arguments to skill::search as they came:
	// the tool takes every field the function takes (group and max_tokens
	// too) and refuses what the function refuses, with the function's own
	// error (invalid_argument naming the value and what is allowed), rather
	// than the SDK's schema check's. Before, group was refused over MCP
	// and max_tokens: 0 was taken as absent (docs/mcp.md).
	b.server.AddTool(&mcp.Tool{
		Name:         "skill__search",
		Title:        "Search skills",
		Description:  "Searches every skill for the ones that fit a need described in words, best first: id, iii:// uri, title, description, relevance score and the tokens its body costs to read. Then read the best hits with skill__fetch.",
		Annotations:  readOnly,
		InputSchema:  plainSchema[searchInput](),
		OutputSchema: outputSchema[contract.SearchResults](),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		var out contract.SearchResults
		if err := b.call(ctx, contract.FnSkillSearch, args, &out); err != nil {
			return toolError(err), nil
		}
		text, _ := json.Marshal(out)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: out}, nil
	})
}

// outputSchema is the output schema the SDK infers for T, as the typed
// tools get it. A type that has no schema is a bug caught at start.
func outputSchema[T any]() *jsonschema.Schema {
	schema, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: no output schema for %T: %v", *new(T), err))
	}
	return schema
}

// toolError is a failed call as the model should see it.
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// plainSchema is the input schema the SDK would infer for T, with its
// nullable types made plain (schema.go): uris is an array, not
// ["null", "array"]. A type that has no schema is a bug caught at start.
func plainSchema[T any]() map[string]any {
	schema, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: no input schema for %T: %v", *new(T), err))
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema for %T: %v", *new(T), err))
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(fmt.Sprintf("mcpserver: input schema for %T: %v", *new(T), err))
	}
	plainTypes(m)
	return m
}
