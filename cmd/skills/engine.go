package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/engine"
)

// engineFlags are the flags shared by "skills engine" and "skills dev".
type engineFlags struct {
	host string
	port int
	data string
}

func (f *engineFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.host, "host", "127.0.0.1", "interface the local engine listens on")
	fs.IntVar(&f.port, "port", 49134, "port the local engine listens on (the iii default is 49134)")
	fs.StringVar(&f.data, "data", "", "keep state in DIR/state.json across restarts (default: in memory, lost on exit)")
}

func (f *engineFlags) validate(name string) error {
	if f.port < 0 || f.port > 65535 {
		return usagef("%s: --port must be between 0 and 65535, got %d", name, f.port)
	}
	return nil
}

func (f *engineFlags) addr() string { return net.JoinHostPort(f.host, strconv.Itoa(f.port)) }

// startEngine starts the local engine and says in the log where its state
// lives and how to reach it.
func startEngine(ctx context.Context, f engineFlags, log *zap.Logger) (*engine.Engine, error) {
	if f.data != "" {
		log.Info("state is kept in "+filepath.Join(f.data, engine.StateFile)+", written within a second of each change and on shutdown", zap.String("data", f.data))
	} else {
		log.Info("state is in memory and lost when this process ends; --data DIR keeps it")
	}
	srv, err := engine.Start(ctx, f.addr(), engine.Options{Logger: log.Named("engine"), DataDir: f.data})
	if err != nil {
		if _, ok := errors.AsType[*engine.StateFileError](err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("start local engine on %s (is another engine already using the port? pick one with --port): %w", f.addr(), err)
	}
	log.Info("local iii engine listening; point workers at it with III_URL", zap.String("url", srv.URL()))
	return srv, nil
}

// engineCommand is "skills engine": the local engine alone, for workers
// written with any iii SDK.
type engineCommand struct{ io stdio }

const engineUsage = "Usage: skills engine [flags]\n\nRuns the project's local iii engine (WebSocket worker protocol; state in memory, or kept in --data DIR) until interrupted.\n\nFlags:\n"

// Run serves the engine until ctx is cancelled.
func (c engineCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills engine", pflag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if help, err := parseFlags(fs, args, engineUsage, c.io); help || err != nil {
		return err
	}
	if err := ef.validate(fs.Name()); err != nil {
		return err
	}
	log, err := newLogger(fs.Name(), *logLevel, c.io.out)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	srv, err := startEngine(ctx, ef, log)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	<-ctx.Done()
	log.Info("local engine shutting down")
	srv.Close()
	return nil
}
