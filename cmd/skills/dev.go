package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"
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
	srv, log, code, ok := openEngine(fs.Name(), ef, wf.logLevel, stdout, stderr)
	if !ok {
		return code
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	defer srv.Close()
	return serve(ctx, loadConfig(wf.configPath, log), srv.URL(), log)
}
