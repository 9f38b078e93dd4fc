package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readOverMCP connects the official Go SDK client to a Streamable HTTP
// address and reads one resource.
func readOverMCP(t *testing.T, addr, uri string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: addr}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	return res.Contents[0].Text, nil
}

// skills mcp --dev --data DIR keeps what was registered across a clean
// stop and a restart: state is written on shutdown (D46).
func TestMCPDevDataSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	writeFile(t, cfg, "roots: []\n")
	data := filepath.Join(dir, "data")
	start := func() (p *process, addr, engineURL string) {
		p = startCmd(t, "mcp", "--dev", "--config", cfg, "--data", data, "--http", "127.0.0.1:0", "--log-level", "info")
		p.stderr.waitFor(t, "serving MCP over Streamable HTTP at http://")
		addr = regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(p.stderr.String())
		engineURL = regexp.MustCompile(`ws://127\.0\.0\.1:\d+`).FindString(p.stderr.String())
		if addr == "" || engineURL == "" {
			t.Fatalf("no addresses in:\n%s", p.stderr.String())
		}
		return p, addr, engineURL
	}
	p, _, engineURL := start()
	if !strings.Contains(p.stderr.String(), "state is kept in "+filepath.Join(data, "state.log")) {
		t.Errorf("skills mcp --dev --data does not say where state lives:\n%s", p.stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if code, out, errOut := runCmd(t, ctx, "call", "skills::register", "id=kept-across-restarts", "skill=# Kept", "--url", engineURL); code != 0 {
		t.Fatalf("register: %d %s %s", code, out, errOut)
	}
	if code := p.stop(); code != 0 {
		t.Fatalf("skills mcp exited %d:\n%s", code, p.stderr.String())
	}

	_, addr, _ := start()
	if text, err := readOverMCP(t, addr, "iii://kept-across-restarts"); err != nil || text != "# Kept" {
		t.Errorf("after a restart, read = %q, %v", text, err)
	}
}

// skills mcp --dev --data DIR, the real binary, loses no acknowledged
// write when it is killed with SIGKILL right after it: a restart serves it
// to an MCP client (D46, D67).
func TestMCPDevDataSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	writeFile(t, cfg, "roots: []\n")
	data := filepath.Join(dir, "data")
	wsRe, httpRe := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`), regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	start := func() (cmd *exec.Cmd, addr, engineURL string) {
		t.Helper()
		run := startBinary(t, true, func(line string) bool {
			if u := wsRe.FindString(line); u != "" && engineURL == "" {
				engineURL = u
			}
			addr = httpRe.FindString(line)
			return addr != ""
		}, "mcp", "--dev", "--config", cfg, "--data", data, "--http", "127.0.0.1:0", "--log-level", "info")
		if engineURL == "" {
			t.Fatal("skills mcp never said where its engine listens")
		}
		return run.cmd, addr, engineURL
	}
	cmd, _, engineURL := start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if code, out, errOut := runCmd(t, ctx, "call", "skills::register", "id=kept-after-kill", "skill=# Survives SIGKILL", "--url", engineURL); code != 0 {
		t.Fatalf("register: %d %s %s", code, out, errOut)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	_, addr, _ := start()
	if text, err := readOverMCP(t, addr, "iii://kept-after-kill"); err != nil || text != "# Survives SIGKILL" {
		t.Errorf("after SIGKILL and a restart, read = %q, %v", text, err)
	}
}
