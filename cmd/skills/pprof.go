package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// envPprof names the variable that turns on the profiler: an address on
// loopback (127.0.0.1:6060, or 127.0.0.1:0 for any free port) where every
// subcommand serves Go's /debug/pprof/ endpoints for as long as it runs.
// It exists to profile the real binary as a deployment runs it (issue 28:
// where a registration's memory and time go); unset, nothing listens.
// docs/engine.md "Profiling the binary" says how to use it.
const envPprof = "SKILLS_PPROF"

// startPprof serves the profiler on addr until ctx ends, and writes the
// address it listens on to w (the port is known only then when addr asks
// for port 0). An address off loopback is refused: the endpoints expose
// the process's memory and must not be reachable from another machine.
func startPprof(ctx context.Context, addr string, w io.Writer) (stop func(), err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usagef("$%s=%q: want host:port on loopback, such as 127.0.0.1:6060 (%v)", envPprof, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, usagef("$%s=%q: the profiler listens on loopback only: give 127.0.0.1:PORT, [::1]:PORT or localhost:PORT", envPprof, addr)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("$%s=%q: listen for the profiler: %w", envPprof, addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns once Close is called
	}()
	fmt.Fprintf(w, "profiler listening on http://%s/debug/pprof/ ($%s)\n", ln.Addr(), envPprof)
	return func() {
		_ = srv.Close()
		<-done
	}, nil
}
