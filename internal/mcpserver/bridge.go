// Package mcpserver serves the registry to MCP clients directly
// (docs/decisions.md D45), on the official Go SDK: the skills as
// resources (with their iii:// template), the prompts, and the tools
// skill__fetch and skill__search, all answered by the registry's functions
// through an engine. The MCP lists are kept in step with the registry:
// every on-change event re-reads them, and the SDK tells clients with
// notifications/*/list_changed; a changed skill also gets
// notifications/resources/updated for its subscribers.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Caller is what the bridge needs of an engine client.
type Caller interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
}

// Bridge is an MCP server fed by the registry's functions.
type Bridge struct {
	caller Caller
	server *mcp.Server
	log    *zap.Logger

	syncMu    sync.Mutex        // one Sync at a time
	resources map[string]string // uri → its listing entry, as JSON, to see changes
	prompts   map[string]string // name → its listing entry, as JSON
	tools     map[string]bool   // exposed function ids served as tools
	pageSize  int               // 0: the defaults
}

// Option sets up a bridge.
type Option func(*Bridge)

// PageSize makes resources/list, resources/templates/list, prompts/list,
// tools/list and skills/list answer n entries a page, with a cursor to
// the next; 0 keeps the SDK's 1000 for the MCP lists and the registry's
// page_size for skills/list.
func PageSize(n int) Option {
	return func(b *Bridge) { b.pageSize = max(n, 0) }
}

// New returns a bridge serving through caller; call Sync before serving
// and after every change.
func New(caller Caller, version string, log *zap.Logger, opts ...Option) *Bridge {
	if log == nil {
		log = zap.NewNop()
	}
	b := &Bridge{caller: caller, log: log, resources: map[string]string{}, prompts: map[string]string{}, tools: map[string]bool{}}
	for _, o := range opts {
		o(b)
	}
	caps := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	caps.AddExtension(ExtensionID, map[string]any{"directoryRead": true})
	options := &mcp.ServerOptions{
		Capabilities:       caps,
		HasResources:       true,
		HasPrompts:         true,
		HasTools:           true,
		SubscribeHandler:   b.subscribe,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		PageSize:           b.pageSize,
	}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "skills", Title: "iii skills registry", Version: version}, options)
	b.server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "iii://{+path}", Name: "skill", MIMEType: "text/markdown",
		Description: "A skill's markdown body (iii://<id>), the index (iii://skills), or a function-backed section (iii://fn/<a>/<b>).",
	}, b.read)
	b.server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "skill://{+path}", Name: "skill-file", MIMEType: "text/markdown",
		Description: "A file of a skill under the MCP Skills extension: skill://<id>/SKILL.md, or a file of a skill folder such as skill://pdf/references/forms.md. skills/list gives every skill with its files.",
	}, b.readSkillFile)
	addTools(b)
	return b
}

// Server is the MCP server, to run on a transport.
func (b *Bridge) Server() *mcp.Server { return b.server }

// call makes one registry call and decodes its result into out.
func (b *Bridge) call(ctx context.Context, fn string, data, out any) error {
	res, err := b.caller.Call(ctx, fn, data)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("%s returned what the bridge cannot read: %w", fn, err)
	}
	return nil
}

// read answers resources/read through skills::resources-read.
func (b *Bridge) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var out mcp.ReadResourceResult
	if err := b.call(ctx, contract.FnSkillsResourcesRead, map[string]string{"uri": req.Params.URI}, &out); err != nil {
		return nil, mapError(err, req.Params.URI)
	}
	return &out, nil
}

// subscribe accepts a subscription to a resource that can be read: an
// iii:// one, or a skill:// file of the MCP Skills extension.
func (b *Bridge) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	fn := contract.FnSkillsResourcesRead
	if strings.HasPrefix(req.Params.URI, skillScheme) {
		fn = contract.FnMCPSkillsRead
	}
	if err := b.call(ctx, fn, map[string]string{"uri": req.Params.URI}, nil); err != nil {
		return mapError(err, req.Params.URI)
	}
	return nil
}

// mapError turns a registry error into the MCP error that says what
// happened: an unknown resource is the resource-not-found error, a
// malformed URI invalid params.
func mapError(err error, uri string) error {
	var ie *iii.Error
	switch {
	case errors.As(err, &ie) && ie.Code == contract.CodeNotFound:
		return mcp.ResourceNotFoundError(uri)
	case errors.As(err, &ie) && ie.Code == contract.CodeInvalidArgument:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: ie.Message}
	}
	return err
}

// listing entries as the registry answers them.
type resourceEntry struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
	Size        *int64 `json:"size"`
	Annotations *struct {
		LastModified string `json:"lastModified"`
	} `json:"annotations"`
}

type promptEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	} `json:"arguments"`
}

// Sync brings the MCP lists in step with the registry: entries added,
// changed and removed; the SDK sends list_changed for each change, and a
// changed resource's subscribers get resources/updated.
func (b *Bridge) Sync(ctx context.Context) error {
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	var resources []resourceEntry
	var cursor string
	for range 10000 { // pages of a registry with page_size set
		var page struct {
			Resources  []resourceEntry `json:"resources"`
			NextCursor string          `json:"nextCursor"`
		}
		payload := map[string]any{}
		if cursor != "" {
			payload["cursor"] = cursor
		}
		if err := b.call(ctx, contract.FnSkillsResourcesList, payload, &page); err != nil {
			return err
		}
		resources = append(resources, page.Resources...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	var prompts struct {
		Prompts []promptEntry `json:"prompts"`
	}
	if err := b.call(ctx, contract.FnPromptsMCPList, map[string]any{}, &prompts); err != nil {
		return err
	}
	b.syncResources(ctx, resources)
	b.syncPrompts(prompts.Prompts)
	return b.syncExposed(ctx)
}

func (b *Bridge) syncResources(ctx context.Context, list []resourceEntry) {
	seen := map[string]bool{}
	var changed []string
	for _, e := range list {
		seen[e.URI] = true
		key, _ := json.Marshal(e)
		if old, ok := b.resources[e.URI]; ok && old == string(key) {
			continue
		} else if ok {
			changed = append(changed, e.URI)
		}
		b.resources[e.URI] = string(key)
		r := &mcp.Resource{URI: e.URI, Name: e.Name, Title: e.Title, Description: e.Description, MIMEType: e.MimeType}
		if e.Size != nil {
			r.Size = *e.Size
		}
		if e.Annotations != nil && e.Annotations.LastModified != "" {
			r.Annotations = &mcp.Annotations{LastModified: e.Annotations.LastModified}
		}
		b.server.AddResource(r, b.read)
	}
	if gone := forget(b.resources, seen); len(gone) > 0 {
		b.server.RemoveResources(gone...)
	}
	for _, uri := range changed {
		// A skill's SKILL.md under the MCP Skills extension changes with
		// its iii:// body (the files of a folder are not followed one by
		// one: skills/get gives their digests).
		for _, u := range []string{uri, skillScheme + strings.TrimPrefix(uri, "iii://") + "/SKILL.md"} {
			if err := b.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u}); err != nil {
				b.log.Debug("resources/updated not sent", zap.String("uri", u), zap.Error(err))
			}
		}
	}
}

func (b *Bridge) syncPrompts(list []promptEntry) {
	seen := map[string]bool{}
	for _, p := range list {
		seen[p.Name] = true
		key, _ := json.Marshal(p)
		if old, ok := b.prompts[p.Name]; ok && old == string(key) {
			continue
		}
		b.prompts[p.Name] = string(key)
		prompt := &mcp.Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			prompt.Arguments = append(prompt.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		b.server.AddPrompt(prompt, b.getPrompt)
	}
	if gone := forget(b.prompts, seen); len(gone) > 0 {
		b.server.RemovePrompts(gone...)
	}
}

// forget deletes from kept, and returns, every key that is not in seen:
// the entries a listing no longer has.
func forget[V any](kept map[string]V, seen map[string]bool) []string {
	var gone []string
	for key := range kept {
		if !seen[key] {
			gone = append(gone, key)
			delete(kept, key)
		}
	}
	return gone
}

// getPrompt answers prompts/get through prompts::mcp-get.
func (b *Bridge) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	var out mcp.GetPromptResult
	args := map[string]any{}
	for k, v := range req.Params.Arguments {
		args[k] = v
	}
	if err := b.call(ctx, contract.FnPromptsMCPGet, map[string]any{"name": req.Params.Name, "arguments": args}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
