package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"go.uber.org/zap"
)

// runDev implements "skills dev": the local engine and the worker in one
// process, so the registry can be tried without iii installed.
func runDev(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("skills dev", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	var wf workerFlags
	wf.register(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: skills dev [flags]\n\nStarts the local iii engine and the skills worker attached to it, until interrupted.\nOther workers can connect to the engine; try 'skills call skills::list' in another terminal.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := ef.validate(); err != nil {
		fmt.Fprintf(stderr, "skills dev: %v\n", err)
		return exitUsage
	}
	log, err := newLogger(wf.logLevel, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "skills dev: %v\n", err)
		return exitUsage
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	srv, err := startEngine(ef, log)
	if err != nil {
		log.Error("cannot start", zap.Error(err))
		return exitError
	}
	defer srv.Close()
	return serve(ctx, loadConfig(wf.configPath, log), srv.URL(), log)
}
