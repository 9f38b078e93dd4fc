package worker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// mcpParts name, in a goroutine's stack, what an MCP server with a Dev
// starts beyond the worker's parts: the local engine, the bridge, the
// SDK's sessions, and the HTTP servers' connections.
var mcpParts = append(slices.Clone(workerParts),
	"internal/engine.", "internal/mcpserver.", "modelcontextprotocol/go-sdk", "net/http.(*conn).serve")

// startDev starts a local engine on a free loopback port with a worker
// of the default config attached; whoever it is handed to closes it.
func startDev(ctx context.Context, t *testing.T) *Dev {
	t.Helper()
	eng, err := engine.Start(ctx, "127.0.0.1:0", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dev, err := NewDev(eng, config.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

// register registers a skill on the engine at url, as another worker or
// skills call would, once the registry is there.
func register(ctx context.Context, t *testing.T, url, id, body string) {
	t.Helper()
	caller := iii.New(iii.Options{URL: url, Name: "caller"})
	caller.Start()
	defer caller.Close() //nolint:errcheck // its goroutines must be gone before the leak check
	if err := caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := caller.Call(ctx, "skills::register", map[string]string{"id": id, "skill": body})
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("register %s: %v", id, err)
		}
		select { // the worker may not have registered its functions yet
		case <-ctx.Done():
		case <-time.After(registryRetry):
		}
	}
}

// resourceURIs lists the resources the client sees.
func resourceURIs(ctx context.Context, t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	return uris
}

// An MCP server with a local engine and a worker (skills mcp --dev)
// serves a skill registered on its engine to a client over an in-memory
// transport, tells it of a later registration with list_changed, ends
// Run when that client leaves, and leaves no goroutine of the server,
// its worker, its engine, the bridge or the SDK behind once closed.
func TestMCPServerWithDevServesAndStopsEverything(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	dev := startDev(ctx, t)
	serverT, clientT := mcp.NewInMemoryTransports()
	s, err := NewMCPServer(MCPOptions{Dev: dev, Transport: serverT})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) //nolint:errcheck // closed again below, before the leak check
	ran := make(chan error, 1)
	go func() { ran <- s.Run(context.Background()) }()

	register(ctx, t, dev.URL(), "hello", "# Hello\n\nSays hello.")
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, clientT, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if uris := resourceURIs(ctx, t, cs); !slices.Contains(uris, "iii://hello") {
		t.Fatalf("resources = %v, want iii://hello among them", uris)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://hello"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "# Hello\n\nSays hello." {
		t.Fatalf("read iii://hello = %+v, %v", read, err)
	}
	fetched, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{"uris": []string{"iii://hello"}}})
	if err != nil || fetched.IsError || !strings.Contains(fetched.Content[0].(*mcp.TextContent).Text, "Says hello.") {
		t.Fatalf("skill__fetch = %+v, %v", fetched, err)
	}

	register(ctx, t, dev.URL(), "later", "# Later")
	for listed := false; !listed; {
		select {
		case <-changed:
			listed = slices.Contains(resourceURIs(ctx, t, cs), "iii://later")
		case <-ctx.Done():
			t.Fatal("no resources/list_changed showing a registration made while the client was connected")
		}
	}

	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	select { // the client left: Run ends by itself, as over stdio
	case err := <-ran:
		if err != nil {
			t.Errorf("Run after the client left = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not return after its client left")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if g := goroutinesGone(mcpParts...); g != "" {
		t.Errorf("goroutines left after Close:\n%s", g)
	}
	if err := s.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("a second Run = %v, want ErrClosed", err)
	}
}

// Over Streamable HTTP, the server tells Endpoint where it serves once
// it does, answers there, and Close stops it, its HTTP server included,
// and makes Run return nil.
func TestMCPServerOverHTTPClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	endpoints := make(chan string, 1)
	s, err := NewMCPServer(MCPOptions{Dev: startDev(ctx, t), HTTP: "127.0.0.1:0", Endpoint: func(url string) { endpoints <- url }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) //nolint:errcheck // closed again below, before the leak check
	ran := make(chan error, 1)
	go func() { ran <- s.Run(context.Background()) }()
	var endpoint string
	select {
	case endpoint = <-endpoints:
	case <-ctx.Done():
		t.Fatal("the server never said where it serves")
	}
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/mcp") {
		t.Fatalf("endpoint = %q, want http://127.0.0.1:<port>/mcp", endpoint)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if uris := resourceURIs(ctx, t, cs); !slices.Contains(uris, "iii://skills") {
		t.Fatalf("resources = %v, want the index iii://skills", uris)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select { // Close waited for Run; only the send of its result may be left
	case err := <-ran:
		if err != nil {
			t.Errorf("Run after Close = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not return")
	}
	if g := goroutinesGone(mcpParts...); g != "" {
		t.Errorf("goroutines left after Close:\n%s", g)
	}
}

// Options that cannot make a server are refused with what is allowed,
// and the Dev handed over is closed all the same: its engine stops.
func TestNewMCPServerRefusesBadOptions(t *testing.T) {
	stdio, _ := mcp.NewInMemoryTransports()
	for _, tc := range []struct {
		name string
		opts MCPOptions
		dev  bool
		want string
	}{
		{"no engine", MCPOptions{Transport: stdio}, false, "give MCPOptions.URL"},
		{"a URL and a Dev", MCPOptions{URL: "ws://127.0.0.1:1", Transport: stdio}, true, `leave MCPOptions.URL empty (got "ws://127.0.0.1:1")`},
		{"no transport", MCPOptions{URL: "ws://127.0.0.1:1"}, false, "give MCPOptions.Transport (such as stdio) or MCPOptions.HTTP"},
		{"two transports", MCPOptions{URL: "ws://127.0.0.1:1", Transport: stdio, HTTP: "127.0.0.1:0"}, false, "not both or neither"},
		{"a page size too big", MCPOptions{URL: "ws://127.0.0.1:1", Transport: stdio, PageSize: 100001}, false, "MCP page size 100001: give 0 (the registry's pages) to 100000"},
		{"a negative page size", MCPOptions{URL: "ws://127.0.0.1:1", Transport: stdio, PageSize: -1}, false, "MCP page size -1"},
		{"a namespace and a Dev", MCPOptions{Namespace: "shop", Transport: stdio}, true, `serves the Dev's worker, in the default namespace; leave MCPOptions.Namespace empty (got "shop")`},
		{"a blank namespace", MCPOptions{URL: "ws://127.0.0.1:1", Namespace: " ", Transport: stdio}, false, `MCPOptions.Namespace " " is blank`},
		{"authentication over stdio", MCPOptions{URL: "ws://127.0.0.1:1", Transport: stdio, Auth: testAuth(t)}, false, "MCPOptions.Auth checks bearer tokens over HTTP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dev {
				tc.opts.Dev = startDev(t.Context(), t)
			}
			s, err := NewMCPServer(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewMCPServer = %v, %v; want an error saying %q", s, err, tc.want)
			}
			if g := goroutinesGone(mcpParts...); g != "" {
				t.Errorf("goroutines left after a refused NewMCPServer:\n%s", g)
			}
		})
	}
}

// A Dev closed before it ran never runs, and its engine is closed; a Dev
// is handed an engine, never a URL of its own.
func TestDevCloseBeforeRun(t *testing.T) {
	dev := startDev(t.Context(), t)
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dev.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close = %v, want ErrClosed", err)
	}
	if g := goroutinesGone(mcpParts...); g != "" {
		t.Errorf("goroutines left after Close:\n%s", g)
	}

	eng, err := engine.Start(t.Context(), "127.0.0.1:0", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewDev(eng, config.Default(), Options{URL: "ws://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "leave Options.URL empty") {
		t.Errorf("NewDev with a URL = %v, want an error saying to leave it empty", err)
	}
	if g := goroutinesGone(mcpParts...); g != "" {
		t.Errorf("the engine of a refused NewDev is still running:\n%s", g)
	}
}

// Two MCP servers (two editors each starting skills mcp) on an engine
// with 0.23's rules, which leases a worker name to one connection per
// namespace, both serve: each connects under a name of its own.
func TestTwoMCPServersOnANamespacedEngine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	eng, err := engine.Start(ctx, "127.0.0.1:0", engine.Options{Namespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	runIn(t, eng.URL(), "shop", config.Default())
	for i := range 2 {
		serverSide, clientSide := mcp.NewInMemoryTransports()
		s, err := NewMCPServer(MCPOptions{URL: eng.URL(), Namespace: "shop", Transport: serverSide})
		if err != nil {
			t.Fatal(err)
		}
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx) }()
		t.Cleanup(func() {
			s.Close() //nolint:errcheck // Run's result is checked
			if err := <-ran; err != nil {
				t.Errorf("MCP server %d: Run = %v", i, err)
			}
		})
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "1"}, nil).Connect(ctx, clientSide, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() }) //nolint:errcheck // test teardown
		for {
			res, err := cs.ListResources(ctx, nil)
			if err == nil && slices.ContainsFunc(res.Resources, func(r *mcp.Resource) bool { return r.URI == "iii://skills" }) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("MCP server %d never listed the registry in shop: %v", i, err)
			case <-time.After(registryRetry): // the worker may still be registering
			}
		}
	}
}
