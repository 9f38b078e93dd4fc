package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpserver"
)

const mcpUsage = `Usage: skills mcp [--dev [--config ./config.yaml] [--port N] [--data DIR] | --url ws://…] [--http ADDR] [--page-size N]

Serves the registry to an MCP client (Claude, Cursor, …): the skills as
resources, the prompts, and the tools skill__fetch and skill__search, with
list_changed notifications on every change; and the MCP Skills extension
(skills/list, skills/get, skill://<id>/SKILL.md with digests).

  --dev    runs a local engine (on a free loopback port unless --port) and the
           skills worker in this process: nothing else needs to be running.
  --url    talks to a running engine instead (same rules as the worker).
  --http   serves Streamable HTTP on ADDR instead of stdio; the endpoint,
           http://ADDR/mcp, is printed on stderr.

Over stdio, the server ends when the client closes its input. Logs go to
stderr: stdout is the MCP stream.

Flags:
`

// mcpCommand is "skills mcp" (docs/decisions.md D45).
type mcpCommand struct{ io stdio }

// mcpReadyTimeout bounds the wait, with --dev, for the in-process
// registry's functions before serving.
const mcpReadyTimeout = 15 * time.Second

func (c mcpCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills mcp", pflag.ContinueOnError)
	url := fs.String("url", "", "engine URL (default: $III_URL, else $III_ENGINE_URL, else ws://127.0.0.1:49134)")
	dev := fs.Bool("dev", false, "run a local engine and the skills worker in this process")
	configPath := fs.String("config", "config.yaml", "with --dev: the worker's config")
	port := fs.Int("port", 0, "with --dev: the local engine's port (0: any free one)")
	data := fs.String("data", "", "with --dev: keep state in DIR/state.json across restarts")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio")
	pageSize := fs.Int("page-size", 0, "entries per page of resources/list, prompts/list, tools/list and skills/list (0: the registry's page_size)")
	logLevel := fs.String("log-level", "warn", "debug, info, warn or error")
	if help, err := parseFlags(fs, args, mcpUsage, c.io); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("skills mcp takes no arguments; run 'skills mcp --help' for usage")
	}
	if *pageSize < 0 || *pageSize > mcpserver.MaxPageSize {
		return usagef("skills mcp: --page-size %d: give 0 (the default: the registry's pages) to %d", *pageSize, mcpserver.MaxPageSize)
	}
	if *dev && *url != "" {
		return usagef("skills mcp: --dev runs its own engine; leave out --url")
	}
	engineURL := ""
	if !*dev {
		var err error
		if engineURL, err = iii.CheckedURL(*url); err != nil {
			return usagef("skills mcp: %v", err)
		}
	}
	log, err := newLogger(fs.Name(), *logLevel, c.io.err)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // best effort on exit

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if *dev {
		srv, err := startEngine(ctx, engineFlags{host: "127.0.0.1", port: *port, data: *data}, log)
		if err != nil {
			return fmt.Errorf("%s: %w", fs.Name(), err)
		}
		defer srv.Close()
		engineURL = srv.URL()
		cfg := config.Resolve(loadConfig(locateConfig(*configPath, fs.Changed("config")), log), config.ModeDev)
		workerDone := make(chan struct{})
		go func() {
			defer close(workerDone)
			if err := serve(ctx, cfg, engineURL, log.Named("worker")); err != nil && ctx.Err() == nil {
				log.Error("the in-process worker stopped", zap.Error(err))
			}
		}()
		defer func() { cancel(); <-workerDone }()
	}

	client := iii.New(iii.Options{URL: engineURL, Name: "skills-mcp", Version: buildinfo.Version, Logger: log.Named("iii")})
	advice := "is an engine running there? Start one (skills engine), give --url the engine's address, or run skills mcp --dev, which runs a local engine and the registry in this process"
	if *dev {
		advice = "the local engine and the registry run in this process; its log on stderr says why they stopped"
	}
	attempted := make(chan struct{})
	caller := afterFirstAttempt{client, attempted}
	bridge := mcpserver.New(caller, buildinfo.Version, log.Named("mcp"), mcpserver.PageSize(*pageSize), mcpserver.Engine(engineURL, advice))
	stopFollowing := bridge.Follow(client)
	defer stopFollowing()
	client.Start()
	defer client.Close() //nolint:errcheck // shutting down
	go func() {
		defer close(attempted)
		wctx, wcancel := context.WithTimeout(ctx, firstAttemptGrace)
		defer wcancel()
		_ = client.WaitFirstAttempt(wctx) // its outcome is the calls' to report
	}()
	defer func() { cancel(); <-attempted }()
	if *dev {
		// The in-process worker registers the registry's functions just
		// now: the first list waits for them rather than failing.
		if err := registryReady(ctx, client); err != nil {
			log.Warn("the in-process registry is not answering yet", zap.String("engine", engineURL), zap.Error(err))
		}
	}
	// Lists are live, so nothing waits for the engine: initialize is
	// answered at once, and a call made while the engine is away fails at
	// once with an error that names it.
	reconnected := make(chan struct{})
	go func() {
		defer close(reconnected)
		tellOnConnect(ctx, client, bridge)
	}()
	defer func() { cancel(); <-reconnected }()

	if *httpAddr != "" {
		return serveHTTP(ctx, *httpAddr, bridge, c.io.err)
	}
	err = bridge.Server().Run(ctx, mcpserver.Stdio(c.io.in, c.io.out))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("skills mcp: %w", err)
	}
	return nil
}

// firstAttemptGrace bounds how long a call made while the first
// connection attempt is under way waits for it.
const firstAttemptGrace = 2 * time.Second

// afterFirstAttempt is the client as the bridge calls it: a call made
// while the first connection attempt is under way waits for its outcome
// (at most firstAttemptGrace), so a client that lists as soon as the
// server has started gets the registry rather than "not connected"; once
// an attempt has succeeded or failed, a call made while the engine is
// away fails at once, naming it.
type afterFirstAttempt struct {
	client    *iii.Client
	attempted <-chan struct{} // closed once the first attempt ended, or the grace did
}

func (a afterFirstAttempt) Call(ctx context.Context, functionID string, data any) (json.RawMessage, error) {
	select {
	case <-a.attempted:
	case <-ctx.Done():
		return nil, fmt.Errorf("invoke %s: %w", functionID, ctx.Err())
	}
	return a.client.Call(ctx, functionID, data)
}

// registryReady waits, up to mcpReadyTimeout, until the registry answers
// through client.
func registryReady(ctx context.Context, client *iii.Client) error {
	ctx, cancel := context.WithTimeout(ctx, mcpReadyTimeout)
	defer cancel()
	if err := client.WaitReady(ctx); err != nil {
		return err
	}
	retry := time.NewTicker(registryRetry)
	defer retry.Stop()
	for {
		_, err := client.Call(ctx, "skills::resources-list", map[string]any{})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-retry.C:
		}
	}
}

// registryRetry is how often registryReady asks again.
const registryRetry = 20 * time.Millisecond

// tellOnConnect tells the MCP clients, on every new connection to the
// engine, that every list may have changed: changes made while the
// engine was away sent no events.
func tellOnConnect(ctx context.Context, client *iii.Client, bridge *mcpserver.Bridge) {
	previous := ""
	for {
		id, err := client.WaitConnection(ctx, previous)
		if err != nil {
			return
		}
		previous = id
		bridge.AllChanged()
	}
}

// serveHTTP serves Streamable HTTP on addr until ctx ends, saying where.
func serveHTTP(ctx context.Context, addr string, bridge *mcpserver.Bridge, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("skills mcp: listen on %s: %w", addr, err)
	}
	// Clients that choose the transport from the path take /mcp for
	// Streamable HTTP; / is served too, as before.
	fmt.Fprintf(out, "skills mcp: serving MCP over Streamable HTTP at http://%s/mcp\n", ln.Addr())
	server := bridge.Server()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.Handle("/{$}", handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(shutdown)
	}
}
