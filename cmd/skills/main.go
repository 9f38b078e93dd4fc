// Command skills is the iii agentic content registry worker: it connects to
// an iii engine, registers the skills::*, skill::fetch and prompts::*
// functions and the two on-change trigger types, and serves markdown skills
// and prompts to every worker on the bus (the mcp worker among them).
//
// Usage:
//
//	skills [--config ./config.yaml] [--url ws://…] [--log-level info]   run the worker
//	skills --manifest                                                   print the registry manifest and exit
//	skills --version                                                    print the version and exit
//	skills dev [--port 49134] [--config …]                              local engine + worker, for trying it out
//	skills engine [--port 49134]                                        local engine only
//	skills call <function-id> [JSON | key=value …]                      trigger any function and print its result
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed
	exitUsage = 2 // bad flags or arguments
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand, or runs the worker when the first
// argument is not one. ctx is cancelled on SIGINT or SIGTERM.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "dev":
			return runDev(ctx, args[1:], stdout, stderr)
		case "engine":
			return runEngine(ctx, args[1:], stdout, stderr)
		case "call":
			return runCall(ctx, args[1:], stdout, stderr)
		case "help":
			fmt.Fprint(stdout, usage)
			return exitOK
		}
	}
	return runWorker(ctx, args, stdout, stderr)
}

const usage = `skills — the iii agentic content registry worker

Usage:
  skills [flags]                         run the worker against an iii engine
  skills dev [flags]                     start a local engine on 127.0.0.1:49134 with the worker attached
  skills engine [--port N]               start only the local engine (other workers may connect)
  skills call <function-id> [JSON | key=value ...]
                                         trigger a function on the engine and print its result

Worker flags:
  --config <path>      config file (default ./config.yaml); missing or malformed → defaults
  --url <ws-url>       engine URL (default: $III_URL, else $III_ENGINE_URL, else ws://127.0.0.1:49134)
  --log-level <level>  debug, info, warn or error (default info)
  --manifest           print the registry manifest JSON and exit
  --version            print the version and exit
  -h, --help           show this help

Run "skills <command> --help" for a command's flags.
`
