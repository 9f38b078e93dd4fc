package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"go.uber.org/zap"
)

const devUsage = `Usage: skills dev [flags]

Starts the local iii engine and the skills worker attached to it, until interrupted.
Other workers can connect to the engine; try 'skills call skills::list' in another terminal.

Flags:
`

// runDev implements "skills dev": the local engine and the worker in one
// process, so the registry can be tried without iii installed.
func runDev(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("skills dev", pflag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	var wf workerFlags
	wf.register(fs)
	if code, done := parseFlags(fs, args, devUsage, stderr); done {
		return code
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
