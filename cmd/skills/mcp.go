package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpserver"
	"github.com/iii-hq/skills-go/internal/worker"
)

const mcpUsage = `Usage: skills mcp [--dev [--config ./config.yaml] [--port N] [--data DIR] | --url ws://… [--namespace NS] [--config FILE]] [--http ADDR [--allow-unauthenticated] [authentication] [HTTP limits]] [--page-size N]

Serves the registry to an MCP client (Claude, Cursor, …): the skills as
resources, the prompts, and the tools skill__fetch and skill__search, with
list_changed notifications on every change; and the MCP Skills extension
(skills/list, skills/get, skill://<id>/SKILL.md with digests).

  --dev    runs a local engine (on a free loopback port unless --port) and the
           skills worker in this process: nothing else needs to be running.
  --url    talks to a running engine instead (same rules as the worker), in
           the namespace --namespace names, else $III_NAMESPACE's (unset or
           blank: default): the one the skills worker registered in.
  --http   serves Streamable HTTP on ADDR instead of stdio; the endpoint,
           http://ADDR/mcp (https:// with TLS), is printed on stderr. An ADDR
           beyond loopback is refused unless authentication is configured (or
           --allow-unauthenticated accepts the risk).

Authentication (with --http; docs/mcp.md#authentication): every request
then needs Authorization: Bearer <token>, and the token's scopes decide
what it may do: skills:read (resources, prompts, skill__fetch,
skill__search; every token needs it), skills:tools (the other tools).
  --auth-tokens FILE      bearer tokens you issue, one a line:
                          NAME SCOPE[,SCOPE] TOKEN (e.g. "ci skills:read <token>");
                          FILE must be readable by its owner only (chmod 600).
  --auth-tokens-env VAR   the same lines in an environment variable (';' between).
  --oauth-issuer URL      OAuth 2.1 access tokens (JWTs) of this authorization
  --oauth-jwks URL        server, checked with its keys at this JWKS URL; their
  --oauth-resource URL    audience must be this server's resource URL (default:
                          the endpoint). Clients find the issuer at
                          /.well-known/oauth-protected-resource.

HTTP limits (with --http; docs/mcp.md#limits-and-safe-defaults):
  --allow-origin URL      serves browser requests from this origin
                          (scheme://host[:port]; repeatable). A request with any
                          other Origin header gets 403; none is allowed by default.
  --max-sessions N        refuses a new session beyond N with 503 (default 1000);
                          a session idle for 30 minutes is closed.
  --max-connections N     holds at most N connections (default 1024): beyond it
                          the one idle the longest is closed.
  --tls-cert FILE --tls-key FILE
                          serves HTTPS with this PEM certificate and key.

A client's read of an iii://fn/<a>/<b> section (resources/read,
skill__fetch) runs a::b only when the function is exposed to MCP, as for
tools/call, or named under mcp.sections_allow in the config: --dev's, or
with --url the file --config names (read for that key alone).

Over stdio, the server ends when the client closes its input. Logs go to
stderr: stdout is the MCP stream.

Flags:
`

// mcpCommand is "skills mcp" (docs/decisions.md D45): the flags, then
// the MCP server composed in internal/worker (worker.MCPServer).
type mcpCommand struct{ io stdio }

// The advice the MCP clients' errors give while the engine or the
// registry cannot be reached.
const (
	mcpRemoteAdvice = "is an engine running there? Start one (skills engine), give --url the engine's address, or run skills mcp --dev, which runs a local engine and the registry in this process"
	mcpDevAdvice    = "the local engine and the registry run in this process; its log on stderr says why they stopped"
)

func (c mcpCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills mcp", pflag.ContinueOnError)
	url := fs.String("url", "", "engine URL (default: $III_URL, else $III_ENGINE_URL, else ws://127.0.0.1:49134)")
	dev := fs.Bool("dev", false, "run a local engine and the skills worker in this process")
	configPath := fs.String("config", "config.yaml", "with --dev: the worker's config; with --url: read for mcp.sections_allow only")
	port := fs.Int("port", 0, "with --dev: the local engine's port (0: any free one)")
	data := fs.String("data", "", "with --dev: keep state in DIR/state.log across restarts, each write on disk before it is acknowledged")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio")
	allowUnauthenticated := fs.Bool("allow-unauthenticated", false, "with --http: listen on an address beyond loopback without authentication")
	authOpts := registerAuthFlags(fs)
	allowOrigins := fs.StringArray("allow-origin", nil, "with --http: serve browser requests whose Origin is `URL` (repeatable; default: none)")
	maxSessions := fs.Int("max-sessions", worker.DefaultMaxSessions, "with --http: hold at most `N` MCP sessions")
	maxConns := fs.Int("max-connections", worker.DefaultMaxConnections, "with --http: hold at most `N` connections")
	tlsCert := fs.String("tls-cert", "", "with --http and --tls-key: serve HTTPS with the PEM certificate in `FILE`")
	tlsKey := fs.String("tls-key", "", "with --http and --tls-cert: the certificate's PEM private key, in `FILE`")
	pageSize := fs.Int("page-size", 0, "entries per page of resources/list, prompts/list, tools/list and skills/list (0: the registry's page_size)")
	logLevel := fs.String("log-level", "warn", "debug, info, warn or error")
	namespace := registerNamespace(fs)
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
	if *dev && fs.Changed("namespace") {
		return usagef("skills mcp: --dev runs its own engine, whose worker serves in the default namespace; leave out --namespace %q (it is for --url)", *namespace)
	}
	opts := worker.MCPOptions{PageSize: *pageSize, Advice: mcpRemoteAdvice}
	if !*dev {
		var err error
		if opts.URL, err = iii.CheckedURL(*url); err != nil {
			return usagef("skills mcp: %v", err)
		}
		if opts.Namespace, err = namespaceOf(fs, *namespace); err != nil {
			return err
		}
	}
	if *httpAddr == "" {
		for _, name := range []string{"allow-origin", "max-sessions", "max-connections", "tls-cert", "tls-key"} {
			if fs.Changed(name) {
				return usagef("skills mcp: --%s is for Streamable HTTP; give --http ADDR too", name)
			}
		}
	}
	if *maxSessions < 1 || *maxConns < 1 {
		return usagef("skills mcp: --max-sessions %d, --max-connections %d: give positive numbers", *maxSessions, *maxConns)
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return usagef("skills mcp: TLS needs --tls-cert and --tls-key together (got --tls-cert %q, --tls-key %q)", *tlsCert, *tlsKey)
	}
	httpOpts := worker.HTTPOptions{AllowOrigins: *allowOrigins, MaxSessions: *maxSessions, MaxConnections: *maxConns, TLSCert: *tlsCert, TLSKey: *tlsKey}
	if err := httpOpts.Check(); err != nil {
		return usagef("skills mcp: %v", err)
	}
	log, err := newLogger(fs.Name(), *logLevel, c.io.err)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	opts.Logger = log
	if opts.Auth, err = authOpts.config(*httpAddr, log); err != nil {
		return err
	}
	if *httpAddr != "" {
		if err := checkListen(*httpAddr, opts.Auth.Enabled(), *allowUnauthenticated); err != nil {
			return err
		}
		opts.HTTP = *httpAddr
		opts.HTTPOptions = httpOpts
		opts.Endpoint = func(endpoint string) {
			fmt.Fprintf(c.io.err, "skills mcp: serving MCP over Streamable HTTP at %s\n", endpoint)
		}
	} else {
		stopCatching := catchBrokenPipe()
		defer stopCatching()
		opts.Transport = mcpserver.Stdio(c.io.in, c.io.out)
	}
	if !*dev && fs.Changed("config") {
		opts.SectionsAllow = loadConfig(locateConfig(*configPath, true), log).MCP.SectionsAllow
	}

	if *dev {
		srv, err := startEngine(ctx, engineFlags{host: "127.0.0.1", port: *port, data: *data}, log)
		if err != nil {
			return fmt.Errorf("%s: %w", fs.Name(), err)
		}
		cfg := config.Resolve(loadConfig(locateConfig(*configPath, fs.Changed("config")), log), config.ModeDev)
		if opts.Dev, err = worker.NewDev(srv, cfg, worker.Options{Name: workerName(), Logger: log.Named("worker")}); err != nil {
			return fmt.Errorf("%s: %w", fs.Name(), err)
		}
		opts.Advice = mcpDevAdvice
		opts.SectionsAllow = cfg.MCP.SectionsAllow
	}
	server, err := worker.NewMCPServer(opts)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	defer server.Close() //nolint:errcheck // Run has returned; Close only waits
	if err := server.Run(ctx); err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	return nil
}
