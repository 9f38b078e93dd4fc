package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/mcpskills"
	"github.com/iii-hq/skills-go/internal/registry"
	"github.com/iii-hq/skills-go/internal/roots"
	"github.com/iii-hq/skills-go/internal/search"
)

const waitTimeout = 10 * time.Second

// testAdvice is what the rig's bridge advises when the engine is away.
const testAdvice = "or run skills mcp --dev"

// rig is a local engine with the registry worker (catalog and on-change
// trigger types, as skills runs it), the bridge on its own engine client,
// and the official Go SDK client connected to the bridge in memory.
type rig struct {
	srv     *engine.Engine
	worker  *iii.Client
	client  *iii.Client // the bridge's
	caller  *iii.Client
	bridge  *Bridge
	session *mcp.ClientSession
	listed  chan string // "resources" or "prompts" at each list_changed
	updated chan string // the URI of each resources/updated
}

func newRig(t *testing.T, opts ...Option) *rig { return newRigTB(t, 0, opts...) }

// newRigTB is newRig with the registry's page_size (0: no pages).
func newRigTB(t testing.TB, registryPageSize int, opts ...Option) *rig {
	t.Helper()
	return newRigWith(t, rigConfig{registryPageSize: registryPageSize}, opts...)
}

// rigConfig is what a rig's worker is configured with beyond the default.
type rigConfig struct {
	registryPageSize int       // the registry's page_size (0: no pages)
	flagged          lint.Mode // lint.flagged ("": the default)
	now              time.Time // the registry's clock (zero: time.Now)
}

// newRigWith is newRig with the worker configured by rc.
func newRigWith(t testing.TB, rc rigConfig, opts ...Option) *rig {
	t.Helper()
	srv := iiitest.NewServerWith(t, engine.Options{FunctionsPollInterval: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()

	worker := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	skillsChanged := worker.ProvideTriggerType(iii.TriggerType{ID: contract.SkillsOnChange, Description: contract.SkillsOnChangeDescription})
	promptsChanged := worker.ProvideTriggerType(iii.TriggerType{ID: contract.PromptsOnChange, Description: contract.PromptsOnChangeDescription})
	skills, prompts := catalog.NewSkillsScope("skills", 1<<20), catalog.NewPromptsScope("prompts")
	cat := catalog.New(worker, 5*time.Second, nil, skills, prompts)
	regCfg := registry.Config{Caller: worker, SkillsMirror: skills, PromptsMirror: prompts,
		SkillsChanged: skillsChanged, PromptsChanged: promptsChanged, PageSize: rc.registryPageSize}
	if rc.flagged != "" {
		regCfg.View = catalog.NewView(catalog.ViewConfig{Skills: skills, Prompts: prompts, Caller: worker,
			SkillsScope: "skills", PromptsScope: "prompts", Timeout: 5 * time.Second, Flagged: rc.flagged})
	}
	if !rc.now.IsZero() {
		regCfg.Now = func() time.Time { return rc.now }
	}
	reg := registry.New(regCfg)
	// The worker's functions, in its order (internal/worker's surfaces).
	functions := append(reg.Functions(), roots.New(roots.Config{View: reg.View()}).Functions()...)
	functions = append(functions, search.NewSearcher(search.SearcherConfig{View: reg.View()}).Function(), diagnostics.New(diagnostics.Config{View: reg.View()}).Function())
	functions = append(functions, mcpskills.New(mcpskills.Config{View: reg.View()}).Functions()...)
	for _, f := range functions {
		worker.RegisterFunction(f)
	}
	worker.Start()
	cat.Start()
	t.Cleanup(func() { cat.Close(); worker.Close() })

	caller := iii.New(iii.Options{URL: srv.URL(), Name: "caller"})
	caller.RegisterFunction(iii.Function{ID: "test::prompt", Handler: func(_ context.Context, req iii.Request) (any, error) {
		var args map[string]any
		_ = json.Unmarshal(req.Data, &args)
		return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Triage " + args["topic"].(string)}}}}, nil
	}})
	caller.RegisterFunction(iii.Function{ID: "acme::greet", Description: "Greets someone.", Metadata: json.RawMessage(`{"mcp.expose": true}`),
		RequestFormat: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}},"required":["who"]}`),
		Handler: func(_ context.Context, req iii.Request) (any, error) {
			var in struct{ Who string }
			_ = json.Unmarshal(req.Data, &in)
			return map[string]string{"greeting": "hello " + in.Who}, nil
		}})
	caller.RegisterFunction(iii.Function{ID: "acme::private", Handler: func(context.Context, iii.Request) (any, error) { return nil, nil }})
	caller.RegisterFunction(iii.Function{ID: "skills::sneaky", Metadata: json.RawMessage(`{"mcp":{"expose":true}}`),
		Handler: func(context.Context, iii.Request) (any, error) { return nil, nil }})
	caller.Start()
	t.Cleanup(func() { caller.Close() })

	bridgeClient := iii.New(iii.Options{URL: srv.URL(), Name: "skills-mcp"})
	opts = append([]Option{Engine(srv.URL(), testAdvice)}, opts...)
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	if _, fuzz := t.(*testing.F); fuzz {
		log = zap.NewNop() // nothing may log through f inside its fuzz target
	}
	b := New(bridgeClient, "test", log, opts...)
	bindings := &recordedTriggers{Registrar: bridgeClient}
	stop := b.Follow(bindings)
	bridgeClient.Start()
	t.Cleanup(func() { stop(); bridgeClient.Close() })
	for _, c := range []*iii.Client{worker, caller, bridgeClient} {
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Follow's bindings are live, so no change made from here on goes
	// untold.
	for _, id := range bindings.ids {
		if err := srv.WaitBinding(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	// The caller's functions too: tools/list lists the exposed ones.
	for _, id := range append(functionIDs(functions), "acme::greet", "acme::private", "test::prompt") {
		if err := srv.WaitFunction(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := catalogtest.WaitLoaded(ctx, skills); err != nil {
		t.Fatalf("the catalog never loaded: %v", err)
	}
	r := &rig{srv: srv, worker: worker, client: bridgeClient, caller: caller, bridge: b, listed: make(chan string, 64), updated: make(chan string, 64)}
	clientT, serverT := stdioPair(b)
	ss, err := b.Server().Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { r.listed <- "resources" },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { r.listed <- "prompts" },
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { r.listed <- "tools" },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			r.updated <- req.Params.URI
		},
	})
	// The protocol version today's MCP clients (Claude, Cursor) speak: list
	// changes and resource updates arrive without a subscriptions/listen
	// stream, which the SDK's newest version (2026-07-28) would require.
	r.session, err = client.Connect(context.Background(), clientT, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.session.Close() })
	return r
}

// recordedTriggers is a Registrar that records the ids of the triggers
// registered through it.
type recordedTriggers struct {
	Registrar
	ids []string
}

func (r *recordedTriggers) RegisterTrigger(t iii.Trigger) {
	r.ids = append(r.ids, t.ID)
	r.Registrar.RegisterTrigger(t)
}

// stdioPair connects a client transport to the bridge's stdio transport
// through two pipes, as a process's stdin and stdout would.
func stdioPair(b *Bridge) (client, server mcp.Transport) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	return &mcp.IOTransport{Reader: toClient, Writer: fromClient}, Stdio(toServer, fromServer)
}

func functionIDs(fns []iii.Function) []string {
	ids := make([]string, len(fns))
	for i, f := range fns {
		ids[i] = f.ID
	}
	return ids
}

func (r *rig) call(t testing.TB, fn string, data any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := r.caller.Call(ctx, fn, data); err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
}

// waitFor waits for want on ch, skipping anything else.
func waitFor(t *testing.T, ch chan string, want string) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case got := <-ch:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %q within %s", want, waitTimeout)
		}
	}
}

func (r *rig) uris(t *testing.T) []string {
	t.Helper()
	res, err := r.session.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range res.Resources {
		out = append(out, x.URI)
	}
	return out
}

// An MCP client lists and reads skills, sees list_changed after a
// registration and resources/updated for a subscribed skill that changes,
// and an unknown resource is the SDK's resource-not-found error.
func TestResourcesFollowTheRegistry(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.call(t, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha\n\nFirst body."})
	waitFor(t, r.listed, "resources")
	if got := r.uris(t); !slices.Contains(got, "iii://skills") || !slices.Contains(got, "iii://alpha") {
		t.Fatalf("resources = %v", got)
	}
	res, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://alpha"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "# Alpha\n\nFirst body." || res.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("read = %+v, %v", res, err)
	}
	_, err = r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://nope"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound {
		t.Errorf("read of an unknown skill: %v, want the resource-not-found error", err)
	}
	if err := r.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "iii://nope"}); err == nil {
		t.Error("a subscription to an unknown resource was accepted")
	}

	if err := r.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "iii://alpha"}); err != nil {
		t.Fatal(err)
	}
	r.call(t, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha\n\nSecond body."})
	waitFor(t, r.updated, "iii://alpha")
	res, err = r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://alpha"})
	if err != nil || res.Contents[0].Text != "# Alpha\n\nSecond body." {
		t.Errorf("read after the change = %+v, %v", res, err)
	}

	r.call(t, "skills::unregister", map[string]string{"id": "alpha"})
	waitFor(t, r.listed, "resources")
	if got := r.uris(t); slices.Contains(got, "iii://alpha") {
		t.Errorf("an unregistered skill is still listed: %v", got)
	}
}

// skill__fetch and skill__search are tools with real input schemas, and
// a registry error is the tool's error result, not a protocol error.
func TestTools(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.call(t, "skills::register", map[string]string{"id": "pg/backup", "skill": "# Postgres backups\n\nTake a base backup and keep the WAL."})
	tools, err := r.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, tl := range tools.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		schemas[tl.Name] = string(b)
	}
	if !strings.Contains(schemas["skill__search"], `"query"`) || !strings.Contains(schemas["skill__fetch"], `"uris"`) {
		t.Fatalf("tool schemas = %v", schemas)
	}
	out, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__search", Arguments: map[string]any{"query": "postgres backup"}})
	if err != nil || out.IsError {
		t.Fatalf("search: %+v, %v", out, err)
	}
	var found contract.SearchResults
	b, _ := json.Marshal(out.StructuredContent)
	if json.Unmarshal(b, &found) != nil || found.Total != 1 || found.Results[0].URI != "iii://pg/backup" {
		t.Errorf("search structured result = %s", b)
	}
	out, err = r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{"uris": []string{"iii://pg/backup"}}})
	if err != nil || out.IsError || !strings.Contains(out.Content[0].(*mcp.TextContent).Text, "Take a base backup") {
		t.Errorf("fetch: %+v, %v", out, err)
	}
	out, err = r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__search", Arguments: map[string]any{"query": "   "}})
	if err != nil || !out.IsError || !strings.Contains(out.Content[0].(*mcp.TextContent).Text, "at least one character that is not a space") {
		t.Errorf("a blank search: %+v, %v", out, err)
	}
}

// Prompts are listed, follow registrations, and render through their
// handler.
func TestPrompts(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.call(t, "prompts::register", map[string]any{"name": "triage", "description": "Triage an issue", "function_id": "test::prompt",
		"arguments": []map[string]any{{"name": "topic", "required": true}}})
	waitFor(t, r.listed, "prompts")
	list, err := r.session.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Name != "triage" || len(list.Prompts[0].Arguments) != 1 {
		t.Fatalf("prompts = %+v, %v", list, err)
	}
	got, err := r.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "triage", Arguments: map[string]string{"topic": "billing"}})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != "Triage billing" {
		t.Errorf("get = %+v, %v", got, err)
	}
}

// Functions other workers expose to MCP (an approved typed tool among
// them) are tools named as the iii mcp worker names them, with their
// request schema; hidden namespaces and unexposed functions are not; a
// function that appears later is added, with tools/list_changed.
func TestExposedFunctionsAreTools(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	names := func() map[string]*mcp.Tool {
		list, err := r.session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*mcp.Tool{}
		for _, tl := range list.Tools {
			out[tl.Name] = tl
		}
		return out
	}
	tools := names()
	greet, ok := tools["acme__greet"]
	if !ok || greet.Description != "Greets someone." {
		t.Fatalf("tools = %v", tools)
	}
	if schema, _ := json.Marshal(greet.InputSchema); !strings.Contains(string(schema), `"required":["who"]`) {
		t.Errorf("acme__greet schema = %s", schema)
	}
	for _, absent := range []string{"acme__private", "skills__sneaky", "skill__fetch_skill"} {
		if _, ok := tools[absent]; ok {
			t.Errorf("%s is a tool", absent)
		}
	}
	out, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "acme__greet", Arguments: map[string]any{"who": "ada"}})
	if err != nil || out.IsError || out.StructuredContent.(map[string]any)["greeting"] != "hello ada" {
		t.Errorf("call = %+v, %v", out, err)
	}

	r.caller.RegisterFunction(iii.Function{ID: "acme::later", Metadata: json.RawMessage(`{"mcp.expose": true}`),
		Handler: func(context.Context, iii.Request) (any, error) { return "ok", nil }})
	waitFor(t, r.listed, "tools")
	// The notification seen may be an earlier one's; the list is live, so
	// once the engine has the function it is a tool.
	wctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	if err := r.srv.WaitFunction(wctx, "acme::later"); err != nil {
		t.Fatal(err)
	}
	if _, ok := names()["acme__later"]; !ok {
		t.Error("a function exposed later is not a tool")
	}
}

// With a page size, resources/list and skills/list come in pages joined
// by cursors, as a client pages them, and a cursor the server never gave
// is refused.
func TestResourcesListPages(t *testing.T) {
	r := newRig(t, PageSize(2))
	ctx := context.Background()
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		r.call(t, "skills::register", map[string]string{"id": id, "skill": "# " + id})
	}
	want := []string{"iii://a1", "iii://a2", "iii://a3", "iii://a4", "iii://skills"}
	var got []string
	deadline := time.Now().Add(waitTimeout)
	for !slices.Equal(got, want) {
		if time.Now().After(deadline) {
			t.Fatalf("paged resources = %v, want %v", got, want)
		}
		waitFor(t, r.listed, "resources")
		got = nil
		var cursor string
		for pages := 0; ; pages++ {
			res, err := r.session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Resources) > 2 {
				t.Fatalf("a page of %d entries, over the page size 2", len(res.Resources))
			}
			for _, x := range res.Resources {
				got = append(got, x.URI)
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
		slices.Sort(got)
	}
	_, err := r.session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "not-a-cursor"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a cursor the server never gave: %v, want -32602", err)
	}

	// skills/list pages by the same size.
	raw := r.rawSession(t)
	var skills []string
	cursor := ""
	for pages := 1; ; pages++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := raw.call(MethodSkillsList, params)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Skills []struct {
				URI string `json:"uri"`
			} `json:"skills"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil || len(page.Skills) > 2 || pages > 3 {
			t.Fatalf("skills/list page %d = %s (%v)", pages, res, err)
		}
		for _, s := range page.Skills {
			skills = append(skills, s.URI)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if want := []string{"skill://a1/SKILL.md", "skill://a2/SKILL.md", "skill://a3/SKILL.md", "skill://a4/SKILL.md"}; !slices.Equal(skills, want) {
		t.Errorf("skills/list pages = %v, want %v", skills, want)
	}
}

// An engine outage is an error that names it, on the calls made while it
// lasts; once the engine is back, the same calls are answered again with
// nothing done by the client.
func TestEngineOutageThenRecovery(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	r.call(t, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha"})
	workerBefore, clientBefore := r.worker.Connection(), r.client.Connection()
	if err := r.srv.Pause(); err != nil {
		t.Fatal(err)
	}
	_, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://alpha"})
	if err == nil || !strings.Contains(err.Error(), r.srv.URL()) || !strings.Contains(err.Error(), testAdvice) {
		t.Errorf("read during the outage: %v, want an error that names the engine at %s, with the advice", err, r.srv.URL())
	}
	if _, err := r.session.ListPrompts(ctx, nil); err == nil || !strings.Contains(err.Error(), r.srv.URL()) {
		t.Errorf("prompts/list during the outage: %v, want an error that names the engine at %s", err, r.srv.URL())
	}
	raw := r.rawSession(t)
	if _, err := raw.call(MethodSkillsList, map[string]any{}); err == nil || !strings.Contains(err.Error(), "engine") {
		t.Errorf("skills/list during the outage: %v, want an error that names the engine", err)
	}
	if err := r.srv.Resume(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.worker.WaitConnection(ctx, workerBefore); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.WaitConnection(ctx, clientBefore); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitFunction(ctx, "skills::resources-read"); err != nil {
		t.Fatal(err)
	}
	res, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://alpha"})
	if err != nil || res.Contents[0].Text != "# Alpha" {
		t.Errorf("read after the engine came back = %+v, %v", res, err)
	}
}
