package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpskills"
	"github.com/iii-hq/skills-go/internal/registry"
	"github.com/iii-hq/skills-go/internal/roots"
	"github.com/iii-hq/skills-go/internal/search"
	"github.com/iii-hq/skills-go/internal/tools"
	"github.com/iii-hq/skills-go/internal/toolset"
)

// shutdownGrace bounds how long in-flight handlers may run after SIGINT or
// SIGTERM before the connection is closed under them.
const shutdownGrace = 10 * time.Second

// workerFlags are the flags shared by the worker and "skills dev".
type workerFlags struct {
	configPath string
	logLevel   string
}

func (f *workerFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.configPath, "config", "./config.yaml", "config file; missing or malformed → defaults")
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
	// Logs go to stdout, as the Rust worker's do; iii-worker captures both
	// streams of a managed worker.
	log, err := newLogger(fs.Name(), wf.logLevel, c.io.out)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	return serve(ctx, loadConfig(wf.configPath, log), iii.ResolveURL(*url), log)
}

// loadConfig loads the config, or logs one warning and returns the
// defaults: a bad config never blocks boot.
func loadConfig(path string, log *zap.Logger) config.Config {
	cfg, err := config.Load(path)
	if err != nil {
		log.Warn("failed to load config, using defaults", zap.String("path", path), zap.Error(err))
		return cfg
	}
	log.Info("loaded config from "+path,
		zap.String("skills_scope", cfg.Scopes.Skills), zap.String("prompts_scope", cfg.Scopes.Prompts),
		zap.Strings("skills", cfg.Skills), zap.Strings("prompts", cfg.Prompts), zap.String("glob_base", cfg.GlobBase()))
	return cfg
}

// workerName is the name reported to the engine: $III_WORKER_NAME (set by
// iii-worker for managed workers) or "skills".
func workerName() string {
	if n := os.Getenv("III_WORKER_NAME"); n != "" {
		return n
	}
	return buildinfo.Name
}

// changeTrigger describes one of the two on-change trigger types, logging
// its subscribers as they come and go.
func changeTrigger(id, description string, log *zap.Logger) iii.TriggerType {
	log.Info("registered trigger type", zap.String("trigger_type", id))
	fields := func(s iii.Subscription) []zap.Field {
		return []zap.Field{zap.String("trigger_type", s.TriggerType), zap.String("id", s.ID), zap.String("function_id", s.FunctionID)}
	}
	return iii.TriggerType{
		ID:          id,
		Description: description,
		OnRegister: func(_ context.Context, s iii.Subscription) error {
			log.Info("trigger subscription registered", fields(s)...)
			return nil
		},
		OnUnregister: func(_ context.Context, s iii.Subscription) {
			log.Info("trigger subscription unregistered", fields(s)...)
		},
	}
}

// newToolSet is the set of approved SKILL.md tools when tools.enabled,
// else nil: no command ever runs (D34).
func newToolSet(cfg config.Config, client *iii.Client, src *fsource.Source, log *zap.Logger) *toolset.Set {
	if !cfg.Tools.Enabled {
		return nil
	}
	runner := tools.NewRunner(tools.RunnerOptions{
		MaxConcurrent: cfg.Tools.MaxConcurrent, EnvAllow: cfg.Tools.EnvAllow, Workdir: cfg.ToolsWorkdir(),
	})
	log.Info("tools enabled: approved SKILL.md tools are served as functions", zap.String("lock", cfg.LockPath()))
	return toolset.New(toolset.Options{Registrar: client, Runner: runner, LockPath: cfg.LockPath(), Logger: log.Named("tools"), ReadFile: src.ReadFile})
}

// serve connects the registry to the engine at url and serves until ctx is
// cancelled (graceful shutdown, nil) or the engine rejects the worker for
// good (errReported: the reason is in the log).
func serve(ctx context.Context, cfg config.Config, url string, log *zap.Logger) error {
	client := iii.New(iii.Options{
		URL: url, Name: workerName(), Description: buildinfo.Description,
		Version: buildinfo.Version, Logger: log.Named("iii"),
		MaxResultBytes: cfg.MaxResponseBytes,
		OversizeHint:   contract.OversizeHint,
		MaxFrameBytes:  int64(cfg.MaxFrameBytes),
	})
	triggerTypes := []iii.TriggerType{
		changeTrigger(contract.SkillsOnChange, contract.SkillsOnChangeDescription, log),
		changeTrigger(contract.PromptsOnChange, contract.PromptsOnChangeDescription, log),
	}
	skillsChanged := client.ProvideTriggerType(triggerTypes[0])
	promptsChanged := client.ProvideTriggerType(triggerTypes[1])
	skillsMirror := catalog.NewSkillsScope(cfg.Scopes.Skills, int64(cfg.CacheBytes))
	promptsMirror := catalog.NewPromptsScope(cfg.Scopes.Prompts)
	cat := catalog.New(client, cfg.StateTimeout(), log.Named("catalog"), skillsMirror, promptsMirror)
	src := fsource.New(cfg.GlobBase(), cfg.Skills, cfg.Prompts, fsource.AllowPaths(cfg.AllowDirs()...),
		fsource.MaxFiles(cfg.MaxFiles), fsource.Roots(cfg.Roots...))
	var reg *registry.Registry
	var watch *fsource.Watch
	toolSet := newToolSet(cfg, client, src, log)
	if len(cfg.Skills)+len(cfg.Prompts)+len(cfg.Roots) > 0 {
		// Files are watched and listings read the watch's snapshot; file
		// changes are announced like registrations (D20, D21), and tool
		// skills follow their files (D34).
		watch = fsource.NewWatch(src, fsource.WatchOptions{
			PollInterval: cfg.FSPoll(), Logger: log.Named("fs"),
			OnChange: func(old, updated fsource.Snapshot) {
				reg.FSChanged(context.Background(), old, updated)
				if toolSet != nil {
					toolSet.Sync(updated.Skills)
				}
			},
		})
	}
	reg = registry.New(registry.Config{
		SkillsScope:    cfg.Scopes.Skills,
		PromptsScope:   cfg.Scopes.Prompts,
		StateTimeout:   cfg.StateTimeout(),
		FS:             src,
		FSWatch:        watch,
		FSCacheBytes:   int64(cfg.CacheBytes),
		Caller:         client,
		SkillsChanged:  skillsChanged,
		PromptsChanged: promptsChanged,
		Logger:         log.Named("registry"),

		MaxResponseBytes: cfg.MaxResponseBytes,
		SkillsMirror:     skillsMirror,
		PromptsMirror:    promptsMirror,
		PageSize:         cfg.PageSize,
		IndexMaxTokens:   cfg.IndexMaxTokens,
	})
	surf := newSurfaces(reg, cfg, log.Named("registry"), func(rep *diagnostics.Report) {
		rep.Engine = &diagnostics.Engine{Connected: client.Connection() != "", StateTrigger: cat.Mode() == catalog.ModeLive}
		if rep.Catalog != nil {
			rep.Catalog.Mode = cat.Mode()
		}
		if toolSet != nil {
			rep.Tools = toolRows(toolSet.Entries())
		}
	})
	functions := surf.functions()
	for _, f := range functions {
		client.RegisterFunction(f)
	}
	log.Info("skills registered "+describeFunctions(functions), zap.String("engine", url))
	if watch != nil {
		watch.Start(ctx) // the first scan stops with ctx, so a signal is never kept waiting
		defer watch.Close()
		if toolSet != nil {
			toolSet.Sync(watch.Snapshot().Skills)
		}
	}
	if toolSet != nil {
		toolSet.Start()
		defer toolSet.Close()
	}
	client.Start()
	cat.Start()

	var wg sync.WaitGroup
	readyCtx, cancelReady := context.WithCancel(ctx)
	wg.Add(2)
	go func() {
		defer wg.Done()
		surf.search.Follow(readyCtx) // the search index follows the view's change feed
	}()
	go func() {
		defer wg.Done()
		if client.WaitReady(readyCtx) != nil {
			return
		}
		// The engine sends no acknowledgement of registrations, but it
		// handles one connection's frames in order and the handshake is
		// queued before any call: once a call made now is answered, every
		// function is registered, and "ready" is true for other workers too.
		if _, err := client.Call(readyCtx, "engine::functions::list", map[string]any{}); err != nil {
			if readyCtx.Err() != nil {
				return
			}
			log.Debug("could not confirm registration with engine::functions::list", zap.Error(err))
		}
		log.Info(fmt.Sprintf("skills ready: %d functions + %d custom trigger types", len(functions), len(triggerTypes)), zap.String("worker_id", client.WorkerID()))
		surf.diag.LogFSHealth(readyCtx)
	}()

	var result error
	select {
	case <-ctx.Done():
	case <-client.Done():
		if err := client.Err(); err != nil {
			log.Error("the engine refused this worker; not reconnecting", zap.Error(err))
			result = errReported
		}
	}
	cancelReady()
	wg.Wait()
	log.Info("skills shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// In-flight handlers finish against a catalog that still follows the
	// engine; the catalog stops after them.
	if err := client.Shutdown(shutdownCtx); err != nil && !errors.Is(err, iii.ErrClosed) {
		log.Warn("shutdown did not finish cleanly", zap.Error(err))
	}
	cat.Close()
	return result
}

// surfaces are the worker's surfaces over one content view, the
// registry's.
type surfaces struct {
	reg    *registry.Registry
	roots  *roots.Roots
	search *search.Searcher
	diag   *diagnostics.Diagnoser
	mcp    *mcpskills.Extension
}

// newSurfaces builds the surfaces over reg's view; log is where search
// and the boot scan log, add completes the diagnostics report.
func newSurfaces(reg *registry.Registry, cfg config.Config, log *zap.Logger, add func(*diagnostics.Report)) surfaces {
	view := reg.View()
	return surfaces{
		reg:    reg,
		roots:  roots.New(roots.Config{View: view, Configured: cfg.RootsSet}),
		search: search.NewSearcher(search.SearcherConfig{View: view, Logger: log}),
		diag:   diagnostics.New(diagnostics.Config{View: view, Add: add, Logger: log}),
		mcp:    mcpskills.New(mcpskills.Config{View: view, PageSize: cfg.PageSize, MaxResponseBytes: cfg.MaxResponseBytes}),
	}
}

// functions are the surfaces' functions in registration order: 0.2's
// thirteen, the roots functions, search, diagnostics, then the MCP Skills
// extension's.
func (s surfaces) functions() []iii.Function {
	fns := append(s.reg.Functions(), s.roots.Functions()...)
	fns = append(fns, s.search.Function(), s.diag.Function())
	return append(fns, s.mcp.Functions()...)
}

// describeFunctions counts functions by id prefix for the boot log, in
// order of first appearance: "7 skills::*, 1 skill::* and 5 prompts::*
// functions".
func describeFunctions(functions []iii.Function) string {
	var prefixes []string
	counts := map[string]int{}
	for _, f := range functions {
		prefix, _, _ := strings.Cut(f.ID, "::")
		if counts[prefix] == 0 {
			prefixes = append(prefixes, prefix)
		}
		counts[prefix]++
	}
	parts := make([]string, len(prefixes))
	for i, p := range prefixes {
		parts[i] = fmt.Sprintf("%d %s::*", counts[p], p)
	}
	switch len(parts) {
	case 0:
		return "no functions"
	case 1:
		return parts[0] + " functions"
	default:
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " functions"
	}
}

// toolRows are the tool skills as diagnostics shows them: a row per tool,
// or one row for a skill whose tools do not parse.
func toolRows(entries []toolset.Entry) []diagnostics.Tool {
	rows := []diagnostics.Tool{}
	for _, e := range entries {
		if len(e.Tools) == 0 {
			rows = append(rows, diagnostics.Tool{Skill: e.ID, Status: e.Status, Reason: e.Reason})
			continue
		}
		for _, name := range e.Tools {
			rows = append(rows, diagnostics.Tool{Skill: e.ID, Tool: name, Status: e.Status, Reason: e.Reason})
		}
	}
	return rows
}
