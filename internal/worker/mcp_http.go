package worker

import (
	"context"
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

// httpHandler is the Streamable HTTP endpoint over server, at /mcp and at
// /: sessions expire when idle (httpSessionIdle), and a request a browser
// makes from another origin is refused (403; http.CrossOriginProtection:
// a POST whose Origin is not the server's, or that the browser marks
// cross-site), as the MCP specification asks of servers that must
// validate Origin. Clients that are not browsers send no Origin and are
// not affected; the SDK also refuses a request to a loopback address
// whose Host is not loopback (DNS rebinding).
func httpHandler(server *mcp.Server) http.Handler {
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{SessionTimeout: httpSessionIdle})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.Handle("/{$}", handler)
	return http.NewCrossOriginProtection().Handler(mux)
}

// serveHTTP serves server over Streamable HTTP on addr, behind auth's
// check when it has one (withAuth), until ctx ends,
// telling endpoint (if set) where once it listens. Its one goroutine,
// the http.Server's accept loop, has returned when it does.
func serveHTTP(ctx context.Context, addr string, server *mcp.Server, auth *mcpauth.Config, endpoint func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	// Clients that choose the transport from the path take /mcp for
	// Streamable HTTP; / is served too, as before.
	url := fmt.Sprintf("http://%s/mcp", ln.Addr())
	if endpoint != nil {
		endpoint(url)
	}
	hs := &http.Server{Handler: withAuth(httpHandler(server), auth, url), ReadHeaderTimeout: httpReadHeaderTimeout, IdleTimeout: httpIdleTimeout}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
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
