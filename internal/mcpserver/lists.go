package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/iii-hq/skills-go/internal/contract"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP lists are answered from the registry when they are asked for
// (docs/mcp.md, "Live lists"): the SDK's receiving middleware sees every
// request of a known method before the SDK's own handler, and answers
// these itself. So a list never lags the registry: what a call has
// changed by the time it returns, the next list shows.

// live is the receiving middleware that answers the lists, prompts/get,
// the exposed tools' calls and, for a URI of a scheme not served, a
// read; everything else goes on to the SDK. Whoever answered, the error
// it gives is one the SDK can write (wireSafe).
func (b *Bridge) live(next mcp.MethodHandler) mcp.MethodHandler {
	answer := b.answer(next)
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := answer(ctx, method, req)
		return res, wireSafe(err, req)
	}
}

// answer is live without the check of its errors.
func (b *Bridge) answer(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.ListResourcesRequest:
			var cursor string
			if r.Params != nil {
				cursor = r.Params.Cursor
			}
			return b.listResources(ctx, cursor)
		case *mcp.ListPromptsRequest:
			var cursor string
			if r.Params != nil {
				cursor = r.Params.Cursor
			}
			return b.listPrompts(ctx, cursor)
		case *mcp.GetPromptRequest:
			return b.getPrompt(ctx, r)
		case *mcp.ListToolsRequest:
			var cursor string
			if r.Params != nil {
				cursor = r.Params.Cursor
			}
			return b.listTools(ctx, cursor, next, r)
		case *mcp.CallToolRequest:
			if r.Params != nil && !nativeTool(r.Params.Name) {
				return b.callExposed(ctx, r.Params)
			}
		case *mcp.ReadResourceRequest:
			if r.Params != nil && !served(r.Params.URI) {
				return nil, schemeError(r.Params.URI)
			}
			if r.Params != nil && braced(r.Params.URI) {
				return b.readBraced(ctx, r) // links.go
			}
		}
		return next(ctx, method, req)
	}
}

// listResources answers resources/list with skills::resources-list.
func (b *Bridge) listResources(ctx context.Context, cursor string) (*mcp.ListResourcesResult, error) {
	list, next, err := paged(ctx, b.pageSize, cursor, b.resourcesPage)
	if err != nil {
		return nil, protocolError(err)
	}
	if list == nil {
		list = []*mcp.Resource{} // a JSON array, never null
	}
	return &mcp.ListResourcesResult{Resources: list, NextCursor: next, Cacheable: live0}, nil
}

// listPrompts answers prompts/list with prompts::mcp-list.
func (b *Bridge) listPrompts(ctx context.Context, cursor string) (*mcp.ListPromptsResult, error) {
	list, next, err := paged(ctx, b.pageSize, cursor, b.promptsPage)
	if err != nil {
		return nil, protocolError(err)
	}
	if list == nil {
		list = []*mcp.Prompt{}
	}
	return &mcp.ListPromptsResult{Prompts: list, NextCursor: next, Cacheable: live0}, nil
}

// resourcesPage is one page of skills::resources-list.
func (b *Bridge) resourcesPage(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
	var page struct {
		Resources  []*mcp.Resource `json:"resources"`
		NextCursor string          `json:"nextCursor"`
	}
	err := b.call(ctx, contract.FnSkillsResourcesList, cursorPayload(cursor), &page)
	return page.Resources, page.NextCursor, err
}

func (b *Bridge) promptsPage(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
	var page struct {
		Prompts    []*mcp.Prompt `json:"prompts"`
		NextCursor string        `json:"nextCursor"`
	}
	err := b.call(ctx, contract.FnPromptsMCPList, cursorPayload(cursor), &page)
	return page.Prompts, page.NextCursor, err
}

// live0 marks a list as stale at once: the registry can change at any
// time, and list_changed says when.
var live0 = mcp.Cacheable{TTLMs: 0, CacheScope: "public"}

func cursorPayload(cursor string) map[string]any {
	if cursor == "" {
		return map[string]any{}
	}
	return map[string]any{"cursor": cursor}
}

// getPrompt answers prompts/get through prompts::mcp-get. An unknown
// prompt is invalid params that names it.
func (b *Bridge) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	if req.Params == nil || req.Params.Name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompts/get: params.name is required: a prompt's name from prompts/list"}
	}
	args := map[string]any{}
	for k, v := range req.Params.Arguments {
		args[k] = v
	}
	var out mcp.GetPromptResult
	if err := b.call(ctx, contract.FnPromptsMCPGet, map[string]any{"name": req.Params.Name, "arguments": args}, &out); err != nil {
		return nil, promptError(err, req.Params.Name)
	}
	return &out, nil
}

// pageLimit bounds the registry pages one list request reads.
const pageLimit = 10000

// paged is one page of a list the registry gives in pages of its own.
// With size 0 the registry's page is the answer and its cursor is passed
// through as it is. With a size, the bridge cuts its own pages out of the
// registry's: its cursor names a registry page and how many of its
// entries were given already (pageCursor).
func paged[E any](ctx context.Context, size int, cursor string, fetch func(context.Context, string) ([]E, string, error)) ([]E, string, error) {
	if size == 0 {
		return fetch(ctx, cursor)
	}
	at, err := decodePageCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	var out []E
	for range pageLimit {
		entries, next, err := fetch(ctx, at.Registry)
		if err != nil {
			return nil, "", err
		}
		rest := entries[min(at.Skip, len(entries)):] // the page may have shrunk since
		if need := size - len(out); len(rest) > need {
			return append(out, rest[:need]...), pageCursor{Registry: at.Registry, Skip: at.Skip + need}.encode(), nil
		}
		out = append(out, rest...)
		if next == "" {
			return out, "", nil
		}
		at = pageCursor{Registry: next}
		if len(out) == size {
			return out, at.encode(), nil
		}
	}
	return nil, "", fmt.Errorf("the registry gave more than %d pages for one page of %d", pageLimit, size)
}

// pageCursor is where a page cut by the bridge starts: Skip entries into
// the registry's page at its cursor Registry ("" for its first page).
type pageCursor struct {
	Registry string `json:"r,omitempty"`
	Skip     int    `json:"s,omitempty"`
}

func (c pageCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodePageCursor(s string) (pageCursor, error) {
	var c pageCursor
	if s == "" {
		return c, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Skip < 0 {
		return c, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("cursor %q is not one this server gave out; pass the nextCursor of the previous page, or no cursor for the first page", s)}
	}
	return c, nil
}
