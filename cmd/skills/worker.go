package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/worker"
)

// workerFlags are the flags shared by the worker and "skills dev".
type workerFlags struct {
	configPath string
	logLevel   string
}

func (f *workerFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.configPath, "config", "./config.yaml", "config file (without it: $III_CONFIG, else ./config.yaml); missing or malformed → defaults")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
}

// workerCommand is the worker itself: "skills [flags]" against an engine.
type workerCommand struct{ io stdio }

// Run serves the registry on the engine until ctx is cancelled.
func (c workerCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills", pflag.ContinueOnError)
	fs.SetOutput(c.io.err)
	var wf workerFlags
	wf.register(fs)
	url := fs.String("url", "", "engine URL (default: $III_URL, else $III_ENGINE_URL, else ws://127.0.0.1:49134)")
	manifest := fs.Bool("manifest", false, "print the registry manifest JSON and exit")
	version := fs.Bool("version", false, "print the version and exit")
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		return usagef("skills: %v; run 'skills --help' for usage", err)
	}
	switch {
	case *help:
		_, err := io.WriteString(c.io.out, usage)
		return err
	case *manifest:
		_, err := c.io.out.Write(buildinfo.NewManifest().JSON())
		return err
	case *version:
		_, err := fmt.Fprintf(c.io.out, "%s %s (%s)\n", buildinfo.Name, buildinfo.Version, buildinfo.Target())
		return err
	}
	if fs.NArg() > 0 {
		return usagef("skills: unexpected argument %q; run 'skills --help' for usage", fs.Arg(0))
	}
	engineURL, err := iii.CheckedURL(*url)
	if err != nil {
		return usagef("skills: %v", err)
	}
	// Logs go to stdout, as the Rust worker's do; iii-worker captures both
	// streams of a managed worker.
	log, err := newLogger(fs.Name(), wf.logLevel, c.io.out)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	cfg := config.Resolve(loadConfig(locateConfig(wf.configPath, fs.Changed("config")), log), config.ModeWorker)
	return serveWith(ctx, cfg, worker.Options{URL: engineURL, Name: workerName(), Namespace: workerNamespace(), Logger: log})
}

// loadConfig loads the config at loc, or logs one warning and returns the
// defaults: a bad config never blocks boot. Each value of a config that
// loads that could not be used (it keeps its default, D66) and each
// unknown key is one more warning.
func loadConfig(loc config.Location, log *zap.Logger) config.Config {
	cfg, err := config.LoadAt(loc)
	if err != nil {
		msg := "failed to load config, using defaults"
		if loc.Origin == config.OriginEnv {
			// The path is not on the command line: say where it came from.
			msg = "failed to load config named by $" + config.EnvConfig + ", using defaults"
		}
		log.Warn(msg, zap.String("path", loc.Path), zap.Error(err))
		return cfg
	}
	log.Info("loaded config from "+loc.String(),
		zap.String("skills_scope", cfg.Scopes.Skills), zap.String("prompts_scope", cfg.Scopes.Prompts),
		zap.Strings("skills", cfg.Skills), zap.Strings("prompts", cfg.Prompts), zap.String("glob_base", cfg.GlobBase()))
	for _, p := range cfg.Problems {
		// The rest of the file applies; this key keeps its default (D66).
		log.Warn("config "+loc.Path+": "+p.String(), zap.String("path", loc.Path), zap.Int("line", p.Line), zap.String("key", p.Key))
	}
	for _, u := range cfg.UnknownKeys {
		// The rest of the file applies: 0.2 ignored unknown keys.
		log.Warn("config "+loc.Path+": "+u.String(), zap.String("path", loc.Path), zap.Int("line", u.Line), zap.String("key", u.Key))
	}
	return cfg
}

// workerName is the name reported to the engine: $III_WORKER_NAME (set by
// iii-worker and iii compose for the workers they start) or "skills".
func workerName() string {
	if n := os.Getenv("III_WORKER_NAME"); n != "" {
		return n
	}
	return buildinfo.Name
}

// workerNamespace is the namespace the worker registers in:
// $III_NAMESPACE (set by iii compose to the project's namespace), or ""
// (the engine's default) when it is unset or blank, as the official SDKs
// read it (a blank variable is how a shell says unset).
func workerNamespace() string {
	ns := os.Getenv("III_NAMESPACE")
	if strings.TrimSpace(ns) == "" {
		return ""
	}
	return ns
}

// serve runs a worker for cfg (resolved for its mode) on the engine at
// url until ctx is cancelled (graceful shutdown, nil) or the engine
// rejects the worker for good (errReported: the reason is in the log).
// It serves in the default namespace: skills dev and skills mcp --dev
// run it on their own local engine, where the MCP client and skills call
// look for it.
func serve(ctx context.Context, cfg config.Config, url string, log *zap.Logger) error {
	return serveWith(ctx, cfg, worker.Options{URL: url, Name: workerName(), Logger: log})
}

// serveWith is serve with the worker's options given whole. It logs the
// absolute globs and folders the worker serves first.
func serveWith(ctx context.Context, cfg config.Config, opts worker.Options) error {
	tuneGC()
	log := opts.Logger
	p := servedPathsOf(cfg)
	log.Info("serving files", zap.String("base", p.Base), zap.Strings("skills", p.Skills),
		zap.Strings("prompts", p.Prompts), zap.Strings("roots", p.Roots), zap.Strings("allow_paths", p.Allow))
	w, err := worker.New(cfg, opts)
	if err != nil {
		return err
	}
	defer w.Close() //nolint:errcheck // Run has returned; Close only waits
	err = w.Run(ctx)
	if errors.Is(err, worker.ErrRefused) {
		return errReported // Run logged the reason
	}
	return err
}
