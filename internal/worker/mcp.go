package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpauth"
	"github.com/iii-hq/skills-go/internal/mcpserver"
)

// mcpClientName is the base of an MCP server's name on the engine: each
// gets a random suffix (iii.InstanceName), since every MCP client (an
// editor, an agent) starts a skills mcp of its own, and an iii 0.23
// engine leases a name to one connection per namespace.
const mcpClientName = "skills-mcp"

// MCPOptions say which registry an MCP server serves and how clients
// reach it.
type MCPOptions struct {
	// URL is the engine's WebSocket URL (see iii.ResolveURL); required
	// without Dev, and left empty with it.
	URL string
	// Namespace is the engine namespace (iii 0.23) the server calls the
	// registry in and registers its own functions in
	// (iii.Options.Namespace): the namespace the skills worker serves
	// in. Empty or "default": the default namespace. Left empty with Dev,
	// whose worker serves in the default namespace.
	Namespace string
	// Dev, when set, is a local engine with a worker attached, run beside
	// the server and closed with it: the server serves the registry of
	// Dev's worker through Dev's engine. The server owns it from
	// NewMCPServer on, also when that fails.
	Dev *Dev
	// Transport serves one MCP client (skills mcp serves stdio): the
	// server ends when that client leaves. Give Transport or HTTP.
	Transport mcp.Transport
	// HTTP serves Streamable HTTP on this address (host:port), at /mcp
	// and at /, instead of Transport.
	HTTP string
	// HTTPOptions, with HTTP, are the server's bounds, allowed origins
	// and TLS; the zero value is the defaults.
	HTTPOptions HTTPOptions
	// Auth, with HTTP, is who may connect (mcpauth.Config: static bearer
	// tokens, OAuth access tokens): every request then needs a token, and
	// the token's scopes decide what it may do (mcpserver.Scoped). Nil,
	// or with neither kind of token: no authentication, as before.
	Auth *mcpauth.Config
	// Endpoint, with HTTP, is told the endpoint clients connect to
	// (http://<address>/mcp, or https://) once it is listening. Optional.
	Endpoint func(url string)
	// PageSize is the bridge's page size (mcpserver.PageSize): 0 keeps
	// the registry's pages, at most mcpserver.MaxPageSize.
	PageSize int
	// SectionsAllow names the functions, besides those exposed to MCP,
	// whose iii://fn sections clients may read (mcpserver.SectionsAllow;
	// the config key mcp.sections_allow).
	SectionsAllow []string
	// Advice is what the errors clients get while the engine or the
	// registry cannot be reached say to do (mcpserver.Engine).
	Advice string
	// Logger receives the server's log; the engine client logs under
	// "iii", the bridge under "mcp". Default: none.
	Logger *zap.Logger
}

// MCPServer is an MCP server over a registry (docs/mcp.md): an engine
// client named skills-mcp, the bridge answering MCP clients from the
// registry's functions and following its changes, and, with Dev, a
// local engine and a worker in the same process. NewMCPServer wires it,
// Run serves until its context ends or its one client leaves, Close
// stops it and waits. Every goroutine it starts (the worker's, the
// first attempt's wait, the reconnection follower, the HTTP server's)
// has stopped when Run returns.
type MCPServer struct {
	url       string
	dev       *Dev
	transport mcp.Transport
	httpAddr  string
	httpConf  httpConfig
	endpoint  func(string)
	log       *zap.Logger
	client    *iii.Client
	bridge    *mcpserver.Bridge
	attempted chan struct{} // closed once the first connection attempt ended, or firstAttemptGrace did

	runOnce
}

// NewMCPServer wires an MCP server for opts. It starts no goroutine and
// connects to nothing (Run does).
func NewMCPServer(opts MCPOptions) (*MCPServer, error) {
	httpConf, err := opts.HTTPOptions.check()
	httpConf.auth = opts.Auth
	if err != nil {
		err = fmt.Errorf("worker: %w", err)
	} else {
		err = opts.check()
	}
	if err != nil {
		if opts.Dev != nil {
			opts.Dev.Close() //nolint:errcheck // never ran
		}
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	url := opts.URL
	if opts.Dev != nil {
		url = opts.Dev.URL()
	}
	s := &MCPServer{
		url: url, dev: opts.Dev, transport: opts.Transport, httpAddr: opts.HTTP, httpConf: httpConf, endpoint: opts.Endpoint,
		log: log, attempted: make(chan struct{}), runOnce: newRunOnce(),
	}
	s.client = iii.New(iii.Options{URL: url, Name: iii.InstanceName(mcpClientName), Version: buildinfo.Version, Logger: log.Named("iii"), Namespace: opts.Namespace})
	bridgeOpts := []mcpserver.Option{mcpserver.PageSize(opts.PageSize), mcpserver.Engine(url, opts.Advice), mcpserver.SectionsAllow(opts.SectionsAllow...)}
	if opts.Auth.Enabled() {
		bridgeOpts = append(bridgeOpts, mcpserver.Scoped())
	}
	s.bridge = mcpserver.New(afterFirstAttempt{s.client, s.attempted}, buildinfo.Version, log.Named("mcp"), bridgeOpts...)
	return s, nil
}

// check names what opts lack or have too much of.
func (o MCPOptions) check() error {
	switch {
	case o.Dev == nil && o.URL == "":
		return errors.New("worker: an MCP server needs an engine: give MCPOptions.URL (a ws:// or wss:// URL) or a Dev")
	case o.Dev != nil && o.URL != "":
		return fmt.Errorf("worker: an MCP server with a Dev talks to the Dev's engine, %s; leave MCPOptions.URL empty (got %q)", o.Dev.URL(), o.URL)
	case o.Dev != nil && o.Namespace != "" && o.Namespace != iii.DefaultNamespace:
		return fmt.Errorf("worker: an MCP server with a Dev serves the Dev's worker, in the default namespace; leave MCPOptions.Namespace empty (got %q)", o.Namespace)
	case o.Namespace != "" && strings.TrimSpace(o.Namespace) == "":
		return fmt.Errorf("worker: MCPOptions.Namespace %q is blank; name a namespace, or leave it empty for the default one", o.Namespace)
	case (o.Transport == nil) == (o.HTTP == ""):
		return errors.New("worker: an MCP server serves one transport: give MCPOptions.Transport (such as stdio) or MCPOptions.HTTP (an address), not both or neither")
	case o.Auth.Enabled() && o.HTTP == "":
		return errors.New("worker: MCPOptions.Auth checks bearer tokens over HTTP; give MCPOptions.HTTP, or no Auth (stdio has none)")
	case o.PageSize < 0 || o.PageSize > mcpserver.MaxPageSize:
		return fmt.Errorf("worker: MCP page size %d: give 0 (the registry's pages) to %d", o.PageSize, mcpserver.MaxPageSize)
	}
	return nil
}

// Run serves MCP clients until ctx ends or Close is called, or, on
// Transport, until its client leaves (all nil), or the transport fails.
// A server runs once (ErrClosed after).
//
// With Dev, the worker runs beside the server, and Run waits, at most
// mcpReadyTimeout, for its registry to answer before serving, so the
// first list gets it. Otherwise nothing waits for the engine: initialize
// is answered at once, and a call made while the engine is away fails at
// once with an error that names it (afterFirstAttempt). On every new
// connection to the engine the clients are told every list may have
// changed (tellOnConnect).
func (s *MCPServer) Run(ctx context.Context) error {
	ctx, finish, err := s.beginRun(ctx)
	if err != nil {
		return err
	}
	defer finish()

	// Each deferred stop below cancels ctx first, so every goroutine has
	// been told to stop before any is waited for; they stop in the reverse
	// order of their start, the engine last.
	if s.dev != nil {
		devDone := make(chan struct{})
		go func() {
			defer close(devDone)
			if err := s.dev.Run(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("the in-process worker stopped", zap.Error(err))
			}
		}()
		defer func() {
			s.cancel()
			<-devDone
			s.dev.Close() //nolint:errcheck // Run has returned; Close closes the engine
		}()
	}
	stopFollowing := s.bridge.Follow(s.client)
	defer stopFollowing()
	s.client.Start()
	defer s.client.Close() //nolint:errcheck // shutting down
	go func() {
		defer close(s.attempted)
		wctx, wcancel := context.WithTimeout(ctx, firstAttemptGrace)
		defer wcancel()
		_ = s.client.WaitFirstAttempt(wctx) // its outcome is the calls' to report
	}()
	defer func() { s.cancel(); <-s.attempted }()
	if s.dev != nil {
		// The in-process worker registers the registry's functions just
		// now: the first list waits for them rather than failing.
		if err := registryReady(ctx, s.client); err != nil {
			s.log.Warn("the in-process registry is not answering yet", zap.String("engine", s.url), zap.Error(err))
		}
	}
	reconnected := make(chan struct{})
	go func() {
		defer close(reconnected)
		tellOnConnect(ctx, s.client, s.bridge)
	}()
	defer func() { s.cancel(); <-reconnected }()

	if s.httpAddr != "" {
		return serveHTTP(ctx, s.httpAddr, s.bridge.Server(), s.httpConf, s.endpoint)
	}
	err = s.bridge.Server().Run(ctx, s.transport)
	if err != nil && ctx.Err() == nil && !clientLeft(err) {
		return err
	}
	return nil
}

// clientLeft tells whether a session's end is its client going away: its
// input ended (io.EOF), the SDK saw the connection close, or a write found
// the client no longer reading (a closed pipe, or EPIPE from a standard
// output whose reader is gone) while a notification was on its way.
func clientLeft(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

// Close stops the server, as the end of Run's context does, and waits
// until Run has returned. It may be called at any time, more than once;
// a server closed before Run never runs, and Close closes its Dev.
func (s *MCPServer) Close() error {
	if s.closeRun() {
		return nil
	}
	s.client.Close() //nolint:errcheck // never started
	if s.dev != nil {
		return s.dev.Close()
	}
	return nil
}
