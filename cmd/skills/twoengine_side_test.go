//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpserver"
	"github.com/iii-hq/skills-go/internal/proctest"
)

// side is one engine of the field test (docs/decisions.md D73) with
// everything that talks to it, each a real process or a real client: a
// skills engine --state on a loopback port (kept across a restart), a
// skills worker started as compose starts a package:// container, a
// client that calls through the engine and records what the worker's
// skills::on-change tells it, and skills mcp --url driven by the
// official MCP client.
type side struct {
	name  string
	redis string // the Redis URL both engines keep state in
	bin   string
	port  int // 0 until the first start; the restart keeps it
	url   string

	engine started
	worker *spawned
	client *iii.Client
	mcp    *mcp.ClientSession

	mu    sync.Mutex
	heard map[string]int // "op id" → times heard
	total int
	news  chan struct{} // capacity 1: something was heard
}

// fieldConfig is the workers' config: the default scopes, and passes
// every fieldReconcileMS.
var fieldConfig = fmt.Sprintf("scopes:\n  skills: skills\n  prompts: prompts\nreconcile_ms: %d\n", fieldReconcileMS)

// startSide starts an engine on the Redis at redisURL, then the worker,
// the client and the MCP server on it, and returns once the worker holds
// the client's skills::on-change binding.
func startSide(t *testing.T, name, redisURL string) *side {
	t.Helper()
	s := &side{name: name, redis: redisURL, bin: skillsBinary(t), heard: map[string]int{}, news: make(chan struct{}, 1)}
	s.startEngine(t)
	s.startWorker(t)
	s.startClient(t)
	s.worker.out.waitCount(t, "trigger subscription registered", 1)
	s.startMCP(t)
	return s
}

// startEngine starts skills engine --state on s.port (a free one the
// first time) and waits until it says where it listens.
func (s *side) startEngine(t *testing.T) {
	t.Helper()
	urlRe := regexp.MustCompile(`ws://127\.0\.0\.1:(\d+)`)
	var url string
	s.engine = startBinary(t, false, func(line string) bool {
		if strings.Contains(line, "III_URL") {
			url = urlRe.FindString(line)
		}
		return url != ""
	}, "engine", "--port", strconv.Itoa(s.port), "--state", s.redis)
	if s.port == 0 {
		s.port, _ = strconv.Atoi(urlRe.FindStringSubmatch(url)[1])
		s.url = url
	} else if url != s.url {
		t.Fatalf("engine %s came back at %s, want %s", s.name, url, s.url)
	}
}

// startWorker starts the worker binary as iii compose starts a
// package:// container (docs/deployment.md): no arguments, an environment
// of PATH, HOME and the reserved variables, its config in a 0600 file of
// a 0700 directory named by III_CONFIG, its own process group.
func (s *side) startWorker(t *testing.T) {
	t.Helper()
	confDir := filepath.Join(t.TempDir(), "config")
	if err := os.Mkdir(confDir, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(confDir, "skills.yaml")
	if err := os.WriteFile(conf, []byte(fieldConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"III_URL=" + s.url, "III_NAMESPACE=default", "III_WORKER_NAME=skills-" + s.name, "III_CONFIG=" + conf}
	s.worker = spawn(t, t.TempDir(), env, s.bin)
	s.worker.out.waitCount(t, "skills ready:", 1)
}

// startClient connects the caller, bound to skills::on-change. It comes
// back within 100 ms of its engine, sooner than the worker's supervisor
// (100 ms to 1.5 s).
func (s *side) startClient(t *testing.T) {
	t.Helper()
	c := iii.New(iii.Options{URL: s.url, Name: "field-" + s.name, ReconnectInitial: 20 * time.Millisecond, ReconnectMax: 100 * time.Millisecond})
	fn := "fieldtest::heard-" + strings.ToLower(s.name)
	c.RegisterFunction(iii.Function{ID: fn, Handler: func(_ context.Context, req iii.Request) (any, error) {
		var ev struct{ Op, ID string }
		if err := json.Unmarshal(req.Data, &ev); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.heard[ev.Op+" "+ev.ID]++
		s.total++
		s.mu.Unlock()
		select {
		case s.news <- struct{}{}:
		default:
		}
		return nil, nil
	}})
	c.RegisterTrigger(iii.Trigger{ID: "field-heard-" + s.name, Type: contract.SkillsOnChange, FunctionID: fn})
	c.Start()
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), lineTimeout)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatalf("the client of engine %s: %v", s.name, err)
	}
	s.client = c
}

// startMCP runs skills mcp --url against the engine over stdio, with
// the MCP Skills extension's skills/list registered on the client.
func (s *side) startMCP(t *testing.T) {
	t.Helper()
	cmd := exec.Command(s.bin, "mcp", "--url", s.url)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "field-test-" + s.name, Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*mcpSkillsParams, *mcpSkillsListed](client, mcpserver.MethodSkillsList); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lineTimeout)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("skills mcp --url %s: %v", s.url, err)
	}
	t.Cleanup(func() { _ = session.Close() })
	s.mcp = session
}

// call calls fn through the side's engine.
func (s *side) call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	return s.client.Call(ctx, fn, data)
}

// stopWorker freezes the worker (SIGSTOP): it can neither notice that its
// engine went nor come back before the test lets it.
func (s *side) stopWorker(t *testing.T) {
	t.Helper()
	if err := s.worker.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// continueWorker lets a frozen worker run again; its supervisor finds
// the connection gone and reconnects.
func (s *side) continueWorker(t *testing.T) {
	t.Helper()
	if err := s.worker.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// killEngine ends the engine with SIGKILL and waits until it is gone.
func (s *side) killEngine(t *testing.T) {
	t.Helper()
	if err := s.engine.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := proctest.Ended(s.engine.cmd.Process.Pid, stopTimeout); err != nil {
		t.Fatal(err)
	}
	_ = s.engine.cmd.Wait() // killed: the status says so
}

// restartEngine starts the engine again on the same port and Redis, and
// waits until the client has connected to it and the engine has taken
// the client's binding (parked, no worker provides skills::on-change
// yet): a call made after a handshake is answered after the engine
// processed its registrations (docs/testing.md).
func (s *side) restartEngine(t *testing.T) {
	t.Helper()
	before := s.client.Connection()
	s.startEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), lineTimeout)
	defer cancel()
	if _, err := s.client.WaitConnection(ctx, before); err != nil {
		t.Fatalf("the client of engine %s never came back: %v", s.name, err)
	}
	if _, err := s.call(ctx, "state::list", map[string]string{"scope": "fieldtest"}); err != nil {
		t.Fatalf("engine %s after its restart: %v", s.name, err)
	}
}

// heardNow is a copy of what the side's subscriber heard.
func (s *side) heardNow() (map[string]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.heard))
	for k, n := range s.heard {
		out[k] = n
	}
	return out, s.total
}

// freshness is the worker's catalog.freshness (skills::diagnostics).
func (s *side) freshness(ctx context.Context) (changesByLoad, reconciles uint64, err error) {
	out, err := s.call(ctx, contract.FnSkillsDiagnostics, map[string]any{})
	if err != nil {
		return 0, 0, err
	}
	var rep struct {
		Catalog struct {
			Freshness struct {
				Reconciles    uint64 `json:"reconciles"`
				ChangesByLoad uint64 `json:"changes_by_load"`
			} `json:"freshness"`
		} `json:"catalog"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return 0, 0, fmt.Errorf("skills::diagnostics: %w", err)
	}
	return rep.Catalog.Freshness.ChangesByLoad, rep.Catalog.Freshness.Reconciles, nil
}

// mcpSkillsParams is what the test sends with skills/list.
type mcpSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// mcpSkillsListed is what the test reads of a skills/list answer.
type mcpSkillsListed struct {
	mcp.ResultBase
	Skills []struct {
		URI         string `json:"uri"`
		Frontmatter struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"frontmatter"`
	} `json:"skills"`
	NextCursor string `json:"nextCursor"`
}
