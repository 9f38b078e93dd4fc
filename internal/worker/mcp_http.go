package worker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Streamable HTTP server's timing.
const (
	// httpReadHeaderTimeout bounds how long a client may take to send a
	// request's headers.
	httpReadHeaderTimeout = 10 * time.Second
	// httpShutdownGrace bounds how long requests in flight may run once
	// the server is stopping.
	httpShutdownGrace = 5 * time.Second
)

// serveHTTP serves server over Streamable HTTP on addr until ctx ends,
// telling endpoint (if set) where once it listens. Its one goroutine,
// the http.Server's accept loop, has returned when it does.
func serveHTTP(ctx context.Context, addr string, server *mcp.Server, endpoint func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	// Clients that choose the transport from the path take /mcp for
	// Streamable HTTP; / is served too, as before.
	if endpoint != nil {
		endpoint(fmt.Sprintf("http://%s/mcp", ln.Addr()))
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.Handle("/{$}", handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: httpReadHeaderTimeout}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), httpShutdownGrace)
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
