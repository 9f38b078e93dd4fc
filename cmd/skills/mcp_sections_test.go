package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// skills mcp --url --config FILE takes mcp.sections_allow from FILE
// (D60): a client reads the section of a function the list names, and
// the section of a function neither exposed nor named is refused without
// the function being invoked.
func TestMCPSectionsAllowFromConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, "mcp:\n  sections_allow: [\"ops::*\"]\n")
	srv := iiitest.NewServer(t)
	worker := startCmd(t, "--url", srv.URL(), "--config", cfg)
	worker.stdout.waitFor(t, "skills ready")

	var mu sync.Mutex
	calls := map[string]int{}
	other := iii.New(iii.Options{URL: srv.URL(), Name: "other"})
	for _, id := range []string{"ops::report", "admin::wipe-all"} {
		other.RegisterFunction(iii.Function{ID: id, Handler: func(context.Context, iii.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			calls[id]++
			return "# " + id, nil
		}})
	}
	other.Start()
	t.Cleanup(func() { other.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, id := range []string{"ops::report", "admin::wipe-all"} {
		if err := srv.WaitFunction(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	server := startCmd(t, "mcp", "--url", srv.URL(), "--config", cfg, "--http", "127.0.0.1:0")
	server.stderr.waitFor(t, "serving MCP over Streamable HTTP at http://")
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp\b`).FindString(server.stderr.String())
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: addr}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://fn/ops/report"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "# ops::report" {
		t.Errorf("read of an allow-listed section = %+v, %v", read, err)
	}
	_, err = session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://fn/admin/wipe-all"})
	if err == nil || !strings.Contains(err.Error(), "admin::wipe-all") || !strings.Contains(err.Error(), "mcp.sections_allow") {
		t.Errorf("read of an unexposed section: %v, want a refusal naming the function and mcp.sections_allow", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["ops::report"] != 1 || calls["admin::wipe-all"] != 0 {
		t.Errorf("invocations = %v; want ops::report once and admin::wipe-all never", calls)
	}
}
