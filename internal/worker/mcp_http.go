package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/mcpauth"
)

// The Streamable HTTP server's timing.
const (
	// httpReadHeaderTimeout bounds how long a client may take to send a
	// request's headers.
	httpReadHeaderTimeout = 10 * time.Second
	// httpShutdownGrace bounds how long requests in flight may run once
	// the server is stopping.
	httpShutdownGrace = 5 * time.Second
	// httpIdleTimeout closes a keep-alive connection that sends no new
	// request for this long (none was ever closed before: 20,000 idle
	// connections used every descriptor; issue 27).
	httpIdleTimeout = 2 * time.Minute
)

// httpSessionIdle closes an MCP session that gets no request for this
// long (sessions were never closed before: 50,000 initialize requests
// held 750 MB; issue 27). A client whose session expired is told so by
// the SDK (404) and initializes again. A variable for tests.
var httpSessionIdle = 30 * time.Minute

// httpBodyTimeout bounds how long a client may take to send a request's
// body, once its headers have come (a slow body held its connection
// forever; issue 27). A variable for tests.
var httpBodyTimeout = 30 * time.Second

// The default bounds of HTTPOptions (docs/mcp.md#streamable-http).
const (
	// DefaultMaxSessions is how many MCP sessions the server holds at
	// most, unless HTTPOptions.MaxSessions says otherwise.
	DefaultMaxSessions = 1000
	// DefaultMaxConnections is how many connections the server holds at
	// most, unless HTTPOptions.MaxConnections says otherwise. It is above
	// DefaultMaxSessions, so that every session can hold its stream open
	// and still send requests.
	DefaultMaxConnections = 1024
)

// HTTPOptions are the bounds and the safety of the Streamable HTTP
// server (docs/mcp.md#streamable-http). The zero value is the defaults:
// no browser origin allowed, DefaultMaxSessions, DefaultMaxConnections,
// plain HTTP.
type HTTPOptions struct {
	// AllowOrigins lists the browser origins (scheme://host[:port]) whose
	// requests are served; a request carrying any other Origin is refused
	// with 403. Requests without an Origin (clients that are not
	// browsers) are served.
	AllowOrigins []string
	// MaxSessions caps the MCP sessions held at once: a new session
	// beyond it is refused with 503. 0: DefaultMaxSessions.
	MaxSessions int
	// MaxConnections bounds the connections held at once: beyond it the
	// connection idle the longest is closed, or, if none is idle, the new
	// one. 0: DefaultMaxConnections.
	MaxConnections int
	// TLSCert and TLSKey, given together, are the PEM files of the
	// certificate and private key the server serves HTTPS with.
	TLSCert, TLSKey string
}

// Check names what is wrong with o, as NewMCPServer would, so that a
// command can refuse its flags before it starts anything: a bad origin,
// a negative bound, or a TLS pair that cannot serve (missing,
// unreadable, not PEM, a key not the certificate's).
func (o HTTPOptions) Check() error {
	_, err := o.check()
	return err
}

// check names what is wrong with o, loading the TLS pair to find out
// whether it is usable, and gives it with the defaults filled in.
func (o HTTPOptions) check() (httpConfig, error) {
	c := httpConfig{maxSessions: o.MaxSessions, maxConnections: o.MaxConnections}
	switch {
	case o.MaxSessions < 0:
		return c, fmt.Errorf("HTTP session limit %d: give a positive number, or 0 for the default (%d)", o.MaxSessions, DefaultMaxSessions)
	case o.MaxConnections < 0:
		return c, fmt.Errorf("HTTP connection limit %d: give a positive number, or 0 for the default (%d)", o.MaxConnections, DefaultMaxConnections)
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return c, fmt.Errorf("TLS needs a certificate and its key together (got certificate %q, key %q)", o.TLSCert, o.TLSKey)
	}
	if c.maxSessions == 0 {
		c.maxSessions = DefaultMaxSessions
	}
	if c.maxConnections == 0 {
		c.maxConnections = DefaultMaxConnections
	}
	var err error
	if c.origins, err = newOriginList(o.AllowOrigins); err != nil {
		return c, err
	}
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return c, fmt.Errorf("TLS certificate %s and key %s: %w; give PEM files of a certificate and its own private key", o.TLSCert, o.TLSKey, err)
		}
		c.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	return c, nil
}

// httpConfig is HTTPOptions checked, with the defaults filled in.
type httpConfig struct {
	origins        originList
	maxSessions    int
	maxConnections int
	tls            *tls.Config     // nil: plain HTTP
	auth           *mcpauth.Config // nil or empty: no authentication
}

// httpHandler is the Streamable HTTP endpoint over server, at /mcp and at
// /. In front of the SDK's handler (outermost first): a request whose
// Origin is not allowed, or, arriving on loopback, whose Host is not
// loopback, is refused (guard); a request without a token c.auth
// accepts is refused (withAuth; endpoint is the resource URL OAuth
// tokens name unless c.auth says another); a body has httpBodyTimeout
// to arrive (bodyDeadline); a new session beyond the cap is refused
// (sessionCap). The SDK closes sessions idle for httpSessionIdle.
func httpHandler(server *mcp.Server, c httpConfig, endpoint string) http.Handler {
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{SessionTimeout: httpSessionIdle})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.Handle("/{$}", handler)
	return guard(c.origins, withAuth(bodyDeadline(newSessionCap(server, c.maxSessions, mux)), c.auth, endpoint))
}

// serveHTTP serves server over Streamable HTTP on addr as c says
// (httpHandler; its connections bounded, TLS when c has a pair) until
// ctx ends, telling endpoint (if set) where once it listens. Its one goroutine,
// the http.Server's accept loop, has returned when it does.
func serveHTTP(ctx context.Context, addr string, server *mcp.Server, c httpConfig, endpoint func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	limited := limitConns(ln, c.maxConnections)
	scheme := "http"
	if c.tls != nil {
		scheme = "https"
	}
	// Clients that choose the transport from the path take /mcp for
	// Streamable HTTP; / is served too, as before.
	url := fmt.Sprintf("%s://%s/mcp", scheme, ln.Addr())
	if endpoint != nil {
		endpoint(url)
	}
	hs := &http.Server{
		Handler: httpHandler(server, c, url), ReadHeaderTimeout: httpReadHeaderTimeout, IdleTimeout: httpIdleTimeout,
		ConnState: limited.track, TLSConfig: c.tls,
	}
	done := make(chan error, 1)
	go func() {
		if c.tls != nil {
			done <- hs.ServeTLS(limited, "", "") // the pair is in TLSConfig
			return
		}
		done <- hs.Serve(limited)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// The grace outlives ctx, which has ended: the requests in flight
		// get httpShutdownGrace from now.
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), httpShutdownGrace)
		defer cancel()
		err := hs.Shutdown(shutdown)
		if errors.Is(err, context.DeadlineExceeded) {
			// A request outlived the grace, most often a client's open
			// stream (the GET of Streamable HTTP, which lasts as long as
			// its session): it is cut, as stopping the server means.
			err = hs.Close()
		}
		<-done // Serve returns as soon as Shutdown has closed the listener
		return err
	}
}
