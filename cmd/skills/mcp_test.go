package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// skills mcp --dev, the real binary over stdio, driven by the official Go
// SDK client as an MCP client would: it serves a folder of skills with
// nothing else running, searches and fetches them, and exits soon after
// the client closes its input (D45).
func TestMCPDevOverStdio(t *testing.T) {
	bin := skillsBinary(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents", "pdf-forms"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "agents", "pdf-forms", "SKILL.md"), "---\nname: pdf-forms\ndescription: Fill in PDF forms field by field.\n---\n# PDF forms\n\nList the fields, then fill them.\n")
	cfg := filepath.Join(dir, "config.yaml")
	writeFile(t, cfg, "roots: [agents]\n")

	cmd := exec.Command(bin, "mcp", "--dev", "--config", cfg)
	cmd.Env = append(os.Environ(), "HOME="+dir) // no real ~/.claude/skills in the way
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "iii://pdf-forms") || !slices.Contains(uris, "iii://skills") {
		t.Fatalf("resources = %v", uris)
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://pdf-forms"})
	if err != nil || !strings.HasPrefix(read.Contents[0].Text, "# PDF forms") {
		t.Fatalf("read = %+v, %v", read, err)
	}
	found, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__search", Arguments: map[string]any{"query": "fill a pdf form"}})
	if err != nil || found.IsError || !strings.Contains(found.Content[0].(*mcp.TextContent).Text, `"id":"pdf-forms"`) {
		t.Fatalf("search = %+v, %v", found, err)
	}
	start := time.Now()
	if err := session.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the server took %s to exit after its input closed", took)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("exit state %v, want 0", cmd.ProcessState)
	}
}

// skills mcp --dev --http serves Streamable HTTP at the address it prints;
// a registration made through its engine reaches the client as
// list_changed (D45).
func TestMCPDevOverHTTP(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	writeFile(t, cfg, "roots: []\n")
	p := startCmd(t, "mcp", "--dev", "--config", cfg, "--http", "127.0.0.1:0", "--log-level", "info")
	p.stderr.waitFor(t, "serving MCP over Streamable HTTP at http://")
	// The endpoint printed is /mcp, the path clients that choose the
	// transport by path take for Streamable HTTP; / is served as well.
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp\b`).FindString(p.stderr.String())
	engineURL := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`).FindString(p.stderr.String())
	if addr == "" || engineURL == "" {
		t.Fatalf("no addresses in:\n%s", p.stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: addr}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if _, err := session.ListResources(ctx, nil); err != nil {
		t.Fatal(err)
	}
	root, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: strings.TrimSuffix(addr, "mcp")}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("the root path is no longer served: %v", err)
	}
	root.Close()
	code, out, errOut := runCmd(t, ctx, "call", "skills::register", "id=from-http-test", "skill=# Over HTTP", "--url", engineURL)
	if code != 0 {
		t.Fatalf("register: %d %s %s", code, out, errOut)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list_changed after a registration")
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://from-http-test"})
	if err != nil || read.Contents[0].Text != "# Over HTTP" {
		t.Errorf("read = %+v, %v", read, err)
	}
}

// skills mcp --url, against an engine and a worker running on their own,
// as a deployment runs them: the client lists, reads, searches and
// fetches, and sees list_changed after a registration and after a file
// edit, and resources/updated for the edited skill it subscribed to.
func TestMCPAgainstARunningEngine(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "agents")
	if err := os.MkdirAll(filepath.Join(root, "pdf-forms"), 0o755); err != nil {
		t.Fatal(err)
	}
	skillMD := filepath.Join(root, "pdf-forms", "SKILL.md")
	writeFile(t, skillMD, "---\nname: pdf-forms\ndescription: Fill in PDF forms field by field.\n---\n# PDF forms\n\nList the fields, then fill them.\n")
	cfg := filepath.Join(dir, "config.yaml")
	writeFile(t, cfg, "roots: [agents]\n")

	engine := startCmd(t, "engine", "--port", "0")
	engine.stdout.waitFor(t, "III_URL")
	engineURL := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`).FindString(engine.stdout.String())
	if engineURL == "" {
		t.Fatalf("the engine never said where it listens:\n%s", engine.stdout.String())
	}
	worker := startCmd(t, "--url", engineURL, "--config", cfg, "--log-level", "info")
	// The lists are live: they show the registry once the worker says its
	// functions are on the engine.
	worker.stdout.waitFor(t, "skills ready")
	server := startCmd(t, "mcp", "--url", engineURL, "--http", "127.0.0.1:0")
	server.stderr.waitFor(t, "serving MCP over Streamable HTTP at http://")
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp\b`).FindString(server.stderr.String())

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	listChanged, updated := make(chan struct{}, 64), make(chan string, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: addr}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	uris := func() []string { return listedURIs(ctx, t, session) }
	if got := uris(); !slices.Contains(got, "iii://pdf-forms") {
		t.Fatalf("resources = %v", got)
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://pdf-forms"})
	if err != nil || !strings.HasPrefix(read.Contents[0].Text, "# PDF forms") {
		t.Fatalf("read = %+v, %v", read, err)
	}
	found, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__search", Arguments: map[string]any{"query": "fill in a form in a pdf"}})
	if err != nil || found.IsError || !strings.Contains(found.Content[0].(*mcp.TextContent).Text, `"id":"pdf-forms"`) {
		t.Fatalf("search = %+v, %v", found, err)
	}
	fetched, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{"uris": []string{"iii://pdf-forms"}}})
	if err != nil || fetched.IsError || !strings.Contains(fetched.Content[0].(*mcp.TextContent).Text, "List the fields") {
		t.Fatalf("fetch = %+v, %v", fetched, err)
	}
	if err := session.Subscribe(ctx, &mcp.SubscribeParams{URI: "iii://pdf-forms"}); err != nil {
		t.Fatal(err)
	}

	// A list_changed must arrive, and the list then shows the change.
	waitListChanged := func(what string, holds func() bool) {
		t.Helper()
		for {
			select {
			case <-listChanged:
				if holds() {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no list_changed showing %s", what)
			}
		}
	}
	for len(listChanged) > 0 {
		<-listChanged
	}
	if code, out, errOut := runCmd(t, ctx, "call", "skills::register", "id=registered-later", "skill=# Registered later", "--url", engineURL); code != 0 {
		t.Fatalf("register: %d %s %s", code, out, errOut)
	}
	waitListChanged("a registration", func() bool { return slices.Contains(uris(), "iii://registered-later") })

	for len(listChanged) > 0 {
		<-listChanged
	}
	writeFile(t, skillMD, "---\nname: pdf-forms\ndescription: Fill in PDF forms field by field.\n---\n# PDF forms\n\nList the fields, then fill them. Then check them.\n")
	waitListChanged("a file edit", func() bool { return true }) // the entry's size and lastModified changed
	for got := ""; got != "iii://pdf-forms"; {
		select {
		case got = <-updated:
		case <-ctx.Done():
			t.Fatal("no resources/updated for the edited skill")
		}
	}
	read, err = session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://pdf-forms"})
	if err != nil || !strings.Contains(read.Contents[0].Text, "Then check them.") {
		t.Errorf("read after the edit = %+v, %v", read, err)
	}
}

// skills mcp --url --namespace shop serves the registry of a skills
// worker that registered in namespace shop of an iii 0.23 engine: the
// client lists and reads its skills, and hears list_changed after a
// registration there (the server's binding of skills::on-change is made
// in shop, where the worker provides the trigger type).
func TestMCPReachesARegistryInANamespace(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents", "pdf-forms"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "agents", "pdf-forms", "SKILL.md"), "---\nname: pdf-forms\ndescription: Fill in PDF forms field by field.\n---\n# PDF forms\n\nList the fields, then fill them.\n")
	cfg := filepath.Join(dir, "config.yaml")
	writeFile(t, cfg, "roots: [agents]\n")
	srv := iiitest.NewServerWith(t, engine.Options{Namespaces: true})
	t.Setenv("III_NAMESPACE", "shop")
	worker := startCmd(t, "--url", srv.URL(), "--config", cfg)
	worker.stdout.waitFor(t, "skills ready")
	t.Setenv("III_NAMESPACE", "") // the flag alone takes the server there
	server := startCmd(t, "mcp", "--url", srv.URL(), "--namespace", "shop", "--http", "127.0.0.1:0")
	server.stderr.waitFor(t, "serving MCP over Streamable HTTP at http://")
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp\b`).FindString(server.stderr.String())

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	listChanged := make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
	})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: addr}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	uris := func() []string { return listedURIs(ctx, t, session) }
	if got := uris(); !slices.Contains(got, "iii://pdf-forms") {
		t.Fatalf("resources = %v; want iii://pdf-forms", got)
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://pdf-forms"})
	if err != nil || !strings.HasPrefix(read.Contents[0].Text, "# PDF forms") {
		t.Fatalf("read = %+v, %v", read, err)
	}
	if _, ok := srv.FunctionIn(engine.DefaultNamespace, "skills::list"); ok {
		t.Fatal("skills::list is registered in the default namespace too; the listing proves nothing")
	}

	// The server follows the shop's changes: its binding of the shop
	// worker's skills::on-change is live (made before the lists above, on
	// the same connection).
	if !slices.ContainsFunc(srv.BindingsIn("shop"), func(b engine.Binding) bool {
		return b.TriggerType == "skills::on-change" && !b.Parked
	}) {
		t.Fatalf("no live skills::on-change binding in shop: %+v", srv.BindingsIn("shop"))
	}
	for len(listChanged) > 0 {
		<-listChanged
	}
	if code, out, errOut := runCmd(t, ctx, "call", "skills::register", "id=registered-later", "skill=# Registered later", "--url", srv.URL(), "--namespace", "shop"); code != 0 {
		t.Fatalf("register: %d %s %s", code, out, errOut)
	}
	for {
		select {
		case <-listChanged:
			if slices.Contains(uris(), "iii://registered-later") {
				return
			}
		case <-ctx.Done():
			t.Fatal("no list_changed showing the registration in shop")
		}
	}
}

// A --page-size the registry could not honour is a usage error, before
// anything starts.
func TestMCPPageSizeBounds(t *testing.T) {
	for _, size := range []string{"-1", "100001"} {
		code, _, errOut := runCmd(t, t.Context(), "mcp", "--dev", "--page-size", size)
		if code != 2 || !strings.Contains(errOut, "--page-size "+size+": give 0 (the default: the registry's pages) to 100000") {
			t.Errorf("--page-size %s: exit %d, %q", size, code, errOut)
		}
	}
}

// listedURIs is what resources/list gives the session.
func listedURIs(ctx context.Context, t *testing.T, session *mcp.ClientSession) []string {
	t.Helper()
	res, err := session.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	var out []string
	for _, r := range res.Resources {
		out = append(out, r.URI)
	}
	return out
}
