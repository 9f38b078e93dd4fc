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
)

// skills mcp --dev, the real binary over stdio, driven by the official Go
// SDK client as an MCP client would: it serves a folder of skills with
// nothing else running, searches and fetches them, and exits soon after
// the client closes its input (D45).
func TestMCPDevOverStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "skills")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(p.stderr.String())
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
