// Command skills is the iii agentic content registry worker: it connects to
// an iii engine, registers its skills::*, skill::* and prompts::*
// functions (internal/worker's ExampleNew_functions lists them) and the two
// on-change trigger types, and serves markdown skills and prompts to every
// worker on the bus (the mcp worker among them).
//
// Usage:
//
//	skills [--config ./config.yaml] [--url ws://…] [--log-level info]   run the worker
//	skills --manifest                                                   print the registry manifest and exit
//	skills --version                                                    print the version and exit
//	skills dev [--port 49134] [--config …]                              local engine + worker, for trying it out
//	skills engine [--port 49134] [--like 0.23|0.24]                     local engine only
//	skills call <function-id> [JSON | key=value …] [--namespace NS]     trigger any function and print its result
//	skills tools list|approve|revoke [<skill-id> …] [--dev] [--yes]     approve SKILL.md tools (tools.lock)
//	skills doctor [--config …] [--dev] [--json]                         the diagnostics report offline
//	skills mcp [--dev | --url … [--namespace NS]] [--http ADDR]         the registry as an MCP server
//	skills licenses                                                     the notices of data built into the binary
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := runProfiled(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// runProfiled is run with the profiler serving alongside when $SKILLS_PPROF
// names an address (see envPprof).
func runProfiled(ctx context.Context, args []string, io stdio) error {
	if addr := os.Getenv(envPprof); addr != "" {
		stopPprof, err := startPprof(ctx, addr, io.err)
		if err != nil {
			return err
		}
		defer stopPprof()
	}
	return run(ctx, args, io)
}

// stdio is where a command reads and writes: a payload from in (skills
// call -), results and logs to out (the worker's logs go to stdout, as the
// Rust worker's do), complaints to err.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand. Run returns nil on success; main maps any
// error to an exit code and a line on stderr (see exitCode).
type command interface {
	Run(ctx context.Context, args []string) error
}

// run dispatches to a subcommand, or runs the worker when the first
// argument is not one. ctx is cancelled on SIGINT or SIGTERM.
func run(ctx context.Context, args []string, io stdio) error {
	var cmd command = workerCommand{io}
	if len(args) > 0 {
		switch args[0] {
		case "dev":
			cmd = devCommand{io}
		case "engine":
			cmd = engineCommand{io}
		case "call":
			cmd = callCommand{io}
		case "tools":
			cmd = toolsCommand{io}
		case "doctor":
			cmd = doctorCommand{io}
		case "mcp":
			cmd = mcpCommand{io}
		case "help":
			_, err := io.out.Write([]byte(usage))
			return err
		case "licenses":
			_, err := io.out.Write([]byte(licenses()))
			return err
		}
		if _, ok := cmd.(workerCommand); !ok {
			args = args[1:]
		}
	}
	return cmd.Run(ctx, args)
}

const usage = `skills — the iii agentic content registry worker

Usage:
  skills [flags]                         run the worker against an iii engine
  skills dev [flags]                     start a local engine on 127.0.0.1:49134 with the worker attached
  skills engine [--port N] [--like 0.23|0.24]
                                         start only the local engine (other workers may connect);
                                         --like gives it a later iii's namespaces, configuration and state workers
  skills call <function-id> [JSON | key=value ...] [--namespace NS]
                                         trigger a function on the engine and print its result
  skills tools list|approve|revoke [<skill-id> ...]
                                         approve the typed tools of SKILL.md files (tools.lock)
  skills mcp [--dev [--config] [--port] [--data] | --url [--namespace NS]] [--http ADDR]
                                         serve the registry to an MCP client (stdio, or Streamable HTTP)
  skills doctor [--config] [--dev] [--json]
                                         report what the worker makes of every file, offline; exit 1 on problems
  skills licenses                        print the notices of the data built into the binary (WordNet)

Worker flags:
  --config <path>      config file (default: $III_CONFIG, else ./config.yaml); missing or malformed → defaults
  --url <ws-url>       engine URL (default: $III_URL, else $III_ENGINE_URL, else ws://127.0.0.1:49134)
  --log-level <level>  debug, info, warn or error (default info)
  --manifest           print the registry manifest JSON and exit
  --version            print the version and exit
  -h, --help           show this help

Environment (iii compose sets these for the workers it starts):
  III_URL          the engine, when --url is not given
  III_CONFIG       the config file, when --config is not given; its relative globs,
                   roots and paths resolve against the working directory
  III_NAMESPACE    the engine namespace the worker registers in (unset or blank: default)
  III_WORKER_NAME  the worker's name on the engine (default skills)

Run "skills <command> --help" for a command's flags.
`
