package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Registrar is what Follow needs of an engine client.
type Registrar interface {
	RegisterFunction(f iii.Function)
	RegisterTrigger(t iii.Trigger)
}

// checkTimeout bounds the one call Follow makes, the function list that
// tells whether the exposed tools changed.
const checkTimeout = 30 * time.Second

// pendingChanges is what Follow has still to tell clients.
type pendingChanges struct {
	resources, prompts bool
	tools              bool // the function list changed: see whether the tools, or the registry, did
	allTools           bool // tell clients the tools changed, whatever the list says
	updated            []string
}

// placeholder names the prompt and tool Follow adds and removes at once
// to have the SDK send list_changed (listChanged); nothing lists it.
const placeholder = "skills-mcp-list-changed"

var errPlaceholder = errors.New("not a prompt or tool: a placeholder of the server's")

// Follow binds the registry's skills::on-change and prompts::on-change,
// and the engine's engine::functions-available, to functions of reg's,
// and tells clients of each change: notifications/resources/list_changed
// and notifications/resources/updated for the skill's iii:// and
// skill:// URIs, notifications/prompts/list_changed, and
// notifications/tools/list_changed when the exposed functions changed;
// and the resources and prompts list_changed when the registry's own
// functions came or went (a registry worker started or stopped).
// Events that arrive while it is telling are told once, after. The lists
// themselves are live (lists.go): the events do not feed them. It runs
// until the returned stop is called.
func (b *Bridge) Follow(reg Registrar) (stop func()) {
	base := "skills::mcp::changed-" + iii.UniqueSuffix()
	for _, w := range []struct {
		typ, suffix string
		note        func(json.RawMessage, *pendingChanges)
	}{
		{contract.SkillsOnChange, "-skills", func(data json.RawMessage, p *pendingChanges) {
			p.resources = true
			var ev struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(data, &ev) == nil && ev.ID != "" {
				// A skill's SKILL.md under the MCP Skills extension changes
				// with its iii:// body (the other files of a folder are not
				// followed one by one: skills/get gives their digests).
				p.updated = append(p.updated, iiiScheme+ev.ID, skillScheme+ev.ID+"/SKILL.md")
			}
		}},
		{contract.PromptsOnChange, "-prompts", func(_ json.RawMessage, p *pendingChanges) { p.prompts = true }},
		// A function came or went: an exposed one (an approved typed
		// tool) is a tool to add or remove.
		{"engine::functions-available", "-functions", func(_ json.RawMessage, p *pendingChanges) { p.tools = true }},
	} {
		id := base + w.suffix
		reg.RegisterFunction(iii.Function{
			ID:          id,
			Description: "Internal: the skills MCP server's view of the registry's changes.",
			Metadata:    json.RawMessage(`{"internal":true}`),
			Handler: func(_ context.Context, req iii.Request) (any, error) {
				b.note(func(p *pendingChanges) { w.note(req.Data, p) })
				return nil, nil
			},
		})
		reg.RegisterTrigger(iii.Trigger{ID: id + "-" + w.typ, Type: w.typ, FunctionID: id})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-b.kick:
				b.tell(ctx)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// AllChanged tells clients that every list may have changed, as after a
// new connection to the engine: events sent while it was away were lost.
// Follow's goroutine sends the notifications.
func (b *Bridge) AllChanged() {
	b.note(func(p *pendingChanges) { p.resources, p.prompts, p.allTools = true, true, true })
}

// note records a change under the lock and wakes Follow's goroutine.
func (b *Bridge) note(f func(*pendingChanges)) {
	b.mu.Lock()
	f(&b.pending)
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// tell sends what is pending. It runs in Follow's goroutine alone, and
// calls the SDK with no lock of the bridge's held.
func (b *Bridge) tell(ctx context.Context) {
	b.mu.Lock()
	p := b.pending
	b.pending = pendingChanges{}
	b.mu.Unlock()
	if p.tools || p.allTools {
		tools, registry := b.functionsChanged(ctx)
		p.allTools = p.allTools || tools
		p.resources = p.resources || registry
		p.prompts = p.prompts || registry
	}
	if p.resources {
		b.listChanged(kindResources)
	}
	if p.prompts {
		b.listChanged(kindPrompts)
	}
	if p.allTools {
		b.listChanged(kindTools)
	}
	for _, uri := range slices.Compact(p.updated) {
		if err := b.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			b.log.Debug("resources/updated not sent", zap.String("uri", uri), zap.Error(err))
		}
	}
}

// functionsChanged looks at the engine's function list after it changed:
// tools reports whether the exposed functions differ from the last look,
// registry whether the registry's functions came or went (lists that
// failed while it was away, or that it answered, differ now). Either is
// true when it cannot tell. Only Follow's goroutine calls it.
func (b *Bridge) functionsChanged(ctx context.Context) (tools, registry bool) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	all, err := b.functions(ctx)
	if err != nil {
		b.log.Debug("could not list the engine's functions after a change", zap.Error(err))
		b.seen = functionsSeen{}
		return true, true
	}
	var key strings.Builder
	for _, f := range exposedOf(all) {
		key.WriteString(f.ID + "\x00" + f.Description + "\x00" + string(f.Metadata) + "\x00")
	}
	now := functionsSeen{known: true, exposed: key.String(), registry: slices.ContainsFunc(all, func(f functionRow) bool { return f.ID == contract.FnSkillsResourcesList }) &&
		slices.ContainsFunc(all, func(f functionRow) bool { return f.ID == contract.FnPromptsMCPList })}
	was := b.seen
	b.seen = now
	return !was.known || was.exposed != now.exposed, !was.known || was.registry != now.registry
}

// functionsSeen is what Follow last saw of the engine's functions.
type functionsSeen struct {
	known    bool
	exposed  string // the exposed functions' ids, descriptions and metadata
	registry bool   // the registry's lists are there
}

type listKind int

const (
	kindResources listKind = iota
	kindPrompts
	kindTools
)

// listChanged has the SDK send notifications/<kind>/list_changed to its
// sessions, as it does when its own lists change, so each protocol
// version gets it in its own way (2026-07-28 sessions on their
// subscriptions/listen stream). The SDK v1.8.0 has no call that only
// notifies, so the bridge changes the SDK's list: it adds the iii://
// template again (a replacement), or adds and removes a placeholder
// prompt or tool. The middleware answers every list and prompts/get
// itself, and leaves the placeholder tool out of tools/list, so no
// client sees one.
func (b *Bridge) listChanged(kind listKind) {
	switch kind {
	case kindResources:
		b.server.AddResourceTemplate(iiiTemplate, b.read)
	case kindPrompts:
		b.server.AddPrompt(&mcp.Prompt{Name: placeholder}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, errPlaceholder
		})
		b.server.RemovePrompts(placeholder)
	case kindTools:
		b.server.AddTool(&mcp.Tool{Name: placeholder, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errPlaceholder
		})
		b.server.RemoveTools(placeholder)
	}
}
