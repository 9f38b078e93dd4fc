package main

import (
	"context"
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
  --http   serves Streamable HTTP on ADDR (printed on stderr) instead of stdio.

Over stdio, the server ends when the client closes its input. Logs go to
stderr: stdout is the MCP stream.

Flags:
`

// mcpCommand is "skills mcp" (docs/decisions.md D45).
type mcpCommand struct{ io stdio }

// mcpReadyTimeout bounds the wait for the engine and the registry's
// functions before the first listing.
const mcpReadyTimeout = 15 * time.Second

func (c mcpCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills mcp", pflag.ContinueOnError)
	url := fs.String("url", "", "engine URL (default: $III_URL, else $III_ENGINE_URL, else ws://127.0.0.1:49134)")
	dev := fs.Bool("dev", false, "run a local engine and the skills worker in this process")
	configPath := fs.String("config", "config.yaml", "with --dev: the worker's config")
	port := fs.Int("port", 0, "with --dev: the local engine's port (0: any free one)")
	data := fs.String("data", "", "with --dev: keep state in DIR/state.json across restarts")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio")
	pageSize := fs.Int("page-size", 0, "entries per page of resources/list, prompts/list and tools/list (0: 1000)")
	logLevel := fs.String("log-level", "warn", "debug, info, warn or error")
	if help, err := parseFlags(fs, args, mcpUsage, c.io); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("skills mcp takes no arguments; run 'skills mcp --help' for usage")
	}
	if *pageSize < 0 || *pageSize > mcpserver.MaxPageSize {
		return usagef("skills mcp: --page-size %d: give 0 (the default, 1000) to %d", *pageSize, mcpserver.MaxPageSize)
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
		cfg := config.Resolve(loadConfig(*configPath, log), config.ModeDev)
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
	bridge := mcpserver.New(client, buildinfo.Version, log.Named("mcp"), mcpserver.PageSize(*pageSize))
	stopFollowing := bridge.Follow(client)
	defer stopFollowing()
	client.Start()
	defer client.Close() //nolint:errcheck // shutting down
	if err := firstSync(ctx, client, bridge); err != nil {
		log.Warn("the registry could not be listed yet; lists fill in at its first change", zap.String("engine", engineURL), zap.Error(err))
	}
	resynced := make(chan struct{})
	go func() {
		defer close(resynced)
		resyncOnReconnect(ctx, client, bridge, log)
	}()
	defer func() { cancel(); <-resynced }()

	if *httpAddr != "" {
		return serveHTTP(ctx, *httpAddr, bridge, c.io.err)
	}
	err = bridge.Server().Run(ctx, bridge.Stdio(c.io.in, c.io.out))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("skills mcp: %w", err)
	}
	return nil
}

// firstSync lists the registry once the engine answers and the registry's
// functions are there (with --dev the worker registers them just now).
func firstSync(ctx context.Context, client *iii.Client, bridge *mcpserver.Bridge) error {
	ctx, cancel := context.WithTimeout(ctx, mcpReadyTimeout)
	defer cancel()
	if err := client.WaitReady(ctx); err != nil {
		return err
	}
	for {
		err := bridge.Sync(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// resyncOnReconnect lists the registry again on every new connection:
// changes made while the engine was away sent no events.
func resyncOnReconnect(ctx context.Context, client *iii.Client, bridge *mcpserver.Bridge, log *zap.Logger) {
	previous := client.Connection()
	for {
		id, err := client.WaitConnection(ctx, previous)
		if err != nil {
			return
		}
		previous = id
		if err := firstSync(ctx, client, bridge); err != nil && ctx.Err() == nil {
			log.Warn("could not list the registry after reconnecting", zap.Error(err))
		}
	}
}

// serveHTTP serves Streamable HTTP on addr until ctx ends, saying where.
func serveHTTP(ctx context.Context, addr string, bridge *mcpserver.Bridge, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("skills mcp: listen on %s: %w", addr, err)
	}
	fmt.Fprintf(out, "skills mcp: serving MCP over Streamable HTTP at http://%s/\n", ln.Addr())
	server := bridge.Server()
	handler := bridge.HTTPHandler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
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
