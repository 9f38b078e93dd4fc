// Package mcpserver serves the registry to MCP clients directly
// (docs/decisions.md D45), on the official Go SDK: the skills as
// resources (with their iii:// template), the prompts, the tools
// skill__fetch and skill__search and the functions other workers expose,
// all answered by the registry's functions through an engine.
//
// Nothing is copied: resources/list, prompts/list, prompts/get,
// tools/list and the exposed tools' calls are answered from the registry
// at request time (lists.go), so a list asked for after a registration
// has returned shows it. The registry's on-change events only tell
// clients to list again (follow.go): notifications/*/list_changed, and
// notifications/resources/updated for a changed skill's subscribers.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/iii-hq/skills-go/internal/contract"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Caller is what the bridge needs of an engine client.
type Caller interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
}

// The engine's functions the bridge calls to list what other workers
// expose (the registry's own ids are in package contract).
const (
	fnFunctionsList = "engine::functions::list"
	fnFunctionsInfo = "engine::functions::info"
)

// Bridge is an MCP server fed by the registry's functions.
type Bridge struct {
	caller   Caller
	server   *mcp.Server
	log      *zap.Logger
	pageSize int    // 0: the registry's pages
	engine   string // the engine's URL, for errors; "" when unknown
	advice   string // what to do when the engine or the registry cannot be reached

	sectionsAllow []string // functions whose sections MCP clients may read unexposed (sections.go)
	scoped        bool     // each request's token scopes are checked (scopes.go)

	// What Follow has still to tell clients, and its wake-up (follow.go).
	mu      sync.Mutex
	pending pendingChanges
	kick    chan struct{}
	seen    functionsSeen // the engine's functions as Follow last saw them
}

// Option sets up a bridge.
type Option func(*Bridge)

// PageSize makes resources/list, prompts/list, tools/list and skills/list
// answer at most n entries a page, with a cursor to the next, whatever
// the registry's page_size; 0 keeps the registry's pages (and gives
// tools/list, which the registry does not page, in one page).
func PageSize(n int) Option {
	return func(b *Bridge) { b.pageSize = min(max(n, 0), MaxPageSize) }
}

// Engine names the engine in the errors clients get while it, or the
// registry on it, cannot be reached: its URL, and advice on what to do
// (for example, to run skills mcp --dev instead).
func Engine(url, advice string) Option {
	return func(b *Bridge) { b.engine, b.advice = url, advice }
}

// New returns a bridge serving through caller. Its lists are live from
// the start; Follow keeps clients told of changes.
func New(caller Caller, version string, log *zap.Logger, opts ...Option) *Bridge {
	if log == nil {
		log = zap.NewNop()
	}
	b := &Bridge{caller: caller, log: log, kick: make(chan struct{}, 1)}
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
		CompletionHandler:  b.complete,
	}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "skills", Title: "iii skills registry", Version: version}, options)
	b.server.AddResourceTemplate(iiiTemplate, b.read)
	b.server.AddResourceTemplate(skillTemplate, b.readSkillFile)
	addTools(b)
	b.addExtension()
	b.server.AddReceivingMiddleware(b.live)
	if b.scoped {
		b.server.AddReceivingMiddleware(b.checkScopes) // added last: runs first
	}
	return b
}

// The resource templates: every iii:// and skill:// URI is read through
// them, so the SDK finds a handler for each.
var (
	iiiTemplate = &mcp.ResourceTemplate{
		URITemplate: "iii://{+path}", Name: "skill", MIMEType: "text/markdown",
		Description: "A skill's markdown body (iii://<id>), the index (iii://skills), or a function-backed section (iii://fn/<a>/<b>).",
	}
	skillTemplate = &mcp.ResourceTemplate{
		URITemplate: "skill://{+path}", Name: "skill-file", MIMEType: "text/markdown",
		Description: "A file of a skill under the MCP Skills extension: skill://<id>/SKILL.md, or a file of a skill folder such as skill://pdf/references/forms.md. skills/list gives every skill with its files.",
	}
)

// Server is the MCP server, to run on a transport.
func (b *Bridge) Server() *mcp.Server { return b.server }

// call makes one registry call and decodes its result into out. An
// engine or registry that cannot be reached is an error naming the
// engine (errors.go).
func (b *Bridge) call(ctx context.Context, fn string, data, out any) error {
	res, err := b.caller.Call(ctx, fn, data)
	if err != nil {
		return b.unreachable(fn, err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("%s returned what the bridge cannot read: %w", fn, err)
	}
	return nil
}

// read answers resources/read of an iii:// URI through
// skills::resources-read, once the section it may be is allowed
// (sections.go).
func (b *Bridge) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if err := b.allowSections(ctx, []string{req.Params.URI}); err != nil {
		return nil, resourceError(err, req.Params.URI)
	}
	uri := req.Params.URI
	target, err := linkedRead(uri)
	if err != nil {
		return nil, resourceError(err, uri)
	}
	var out mcp.ReadResourceResult
	if err := b.call(ctx, contract.FnSkillsResourcesRead, map[string]string{"uri": target}, &out); err != nil {
		return nil, resourceError(linkedError(err, uri, target), uri)
	}
	for _, c := range out.Contents {
		c.URI = uri // as asked for, as skills::resources-read echoes it
	}
	return &out, nil
}

// subscribe accepts a subscription to a resource that can be read: an
// iii:// one (a section only if it is allowed, since checking reads it),
// or a skill:// file of the MCP Skills extension.
func (b *Bridge) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	fn := contract.FnSkillsResourcesRead
	switch {
	case strings.HasPrefix(uri, skillScheme):
		fn = contract.FnMCPSkillsRead
	case !strings.HasPrefix(uri, iiiScheme):
		return schemeError(uri)
	default:
		if err := b.allowSections(ctx, []string{uri}); err != nil {
			return resourceError(err, uri)
		}
	}
	if err := b.call(ctx, fn, map[string]string{"uri": uri}, nil); err != nil {
		return resourceError(err, uri)
	}
	return nil
}
