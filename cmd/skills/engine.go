package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// engineFlags are the flags shared by "skills engine" and "skills dev".
type engineFlags struct {
	host string
	port int
}

func (f *engineFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.host, "host", "127.0.0.1", "interface the local engine listens on")
	fs.IntVar(&f.port, "port", 49134, "port the local engine listens on (the iii default is 49134)")
}

func (f *engineFlags) validate() error {
	if f.port < 0 || f.port > 65535 {
		return fmt.Errorf("--port must be between 0 and 65535, got %d", f.port)
	}
	return nil
}

func (f *engineFlags) addr() string { return net.JoinHostPort(f.host, strconv.Itoa(f.port)) }

// openEngine validates the engine flags, builds the logger and starts the
// local engine, explaining how to reach it. When ok is false the command
// exits with code (the reason is already on stderr or in the log);
// otherwise the caller owns srv and log.
func openEngine(name string, f engineFlags, logLevel string, stdout, stderr io.Writer) (srv *iiitest.Server, log *zap.Logger, code int, ok bool) {
	if err := f.validate(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, nil, exitUsage, false
	}
	log, err := newLogger(logLevel, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, nil, exitUsage, false
	}
	srv, err = iiitest.Start(f.addr(), iiitest.Options{Logger: log.Named("engine")})
	if err != nil {
		log.Error("cannot start", zap.Error(fmt.Errorf("start local engine on %s (is another engine already using the port? pick one with --port): %w", f.addr(), err)))
		log.Sync() //nolint:errcheck // best effort on exit
		return nil, nil, exitError, false
	}
	log.Info("local iii engine listening; point workers at it with III_URL", zap.String("url", srv.URL()))
	return srv, log, exitOK, true
}

// runEngine implements "skills engine": the local engine alone, for
// workers written with any iii SDK.
func runEngine(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("skills engine", pflag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	const usage = "Usage: skills engine [flags]\n\nRuns the project's local iii engine (WebSocket worker protocol, in-memory state) until interrupted.\n\nFlags:\n"
	if code, done := parseFlags(fs, args, usage, stderr); done {
		return code
	}
	srv, log, code, ok := openEngine(fs.Name(), ef, *logLevel, stdout, stderr)
	if !ok {
		return code
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	<-ctx.Done()
	log.Info("local engine shutting down")
	srv.Close()
	return exitOK
}
