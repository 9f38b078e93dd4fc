// Package worker is the composition root of the skills worker: it wires
// the engine client, the catalog and its mirrors, the filesystem source
// and its watch, the one content view over them, the surfaces that read
// it (registry, roots, search, diagnostics, mcpskills) and the tool set,
// and runs them until its context ends or the engine refuses it. The
// worker command runs one; skills dev runs one attached to a local
// engine (Dev), and skills mcp an MCP server over a registry
// (MCPServer), with a Dev beside it under --dev. One
// goroutine it owns hands file changes to the registry and the tool set,
// so nothing they do runs under the watch's scan lock; another keeps the
// search index following the view's change feed
// (docs/data-path.md#the-worker).
package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/offered"
	"github.com/iii-hq/skills-go/internal/registry"
	"github.com/iii-hq/skills-go/internal/requires"
	"github.com/iii-hq/skills-go/internal/tools"
	"github.com/iii-hq/skills-go/internal/toolset"
)

// shutdownGrace bounds how long in-flight handlers may run after the
// worker's context ends before the connection is closed under them
// (docs/decisions.md D28).
const shutdownGrace = 10 * time.Second

// ErrRefused is what Run returns when the engine rejected the worker for
// good (the reason is logged, and in the error's chain); the worker does
// not reconnect.
var ErrRefused = errors.New("the engine refused this worker")

// ErrClosed is what Run returns when the worker was closed before it ran,
// or has run already.
var ErrClosed = errors.New("worker: closed, or already run")

// Options say how a worker reaches the engine and where it logs.
type Options struct {
	// URL is the engine's WebSocket URL (see iii.ResolveURL); required.
	URL string
	// Name is the worker's name on the engine; default buildinfo.Name.
	Name string
	// Namespace is the engine namespace the worker registers in (engine
	// 0.23; iii.Options.Namespace); "" is the engine's default.
	Namespace string
	// Logger receives the worker's log; its components log under named
	// children (iii, catalog, fs, tools, registry, search, diagnostics).
	// Default: none.
	Logger *zap.Logger
}

// Worker is one skills worker on one engine. New wires it, Run serves
// until its context ends, Close stops a running worker and waits for it.
// Every goroutine it or its parts start has stopped when Run returns.
type Worker struct {
	url          string
	log          *zap.Logger
	client       *iii.Client
	cat          *catalog.Catalog
	skills       *catalog.Scope // the catalog's scope of skill rows; its bodies go to a BodyStore in Run (D54)
	reg          *registry.Registry
	surfaces     surfaces
	watch        *fsource.Watch // nil without globs or roots
	tools        *toolset.Set   // nil unless tools.enabled (D34)
	live         *liveConfig    // follows the engine's configuration entry, where there is one
	usage        usageParts     // usage by stage, flushed to state (D84)
	avail        *availability  // the engine's function list skills are judged against (D85)
	changes      *changeQueue
	functions    []iii.Function
	triggerTypes int
	// configProblems are the config file's values that kept their
	// defaults (D66), for skills::diagnostics; fixed at New.
	configProblems []diagnostics.ConfigProblem

	runOnce
}

// New wires a worker for cfg, a config already resolved for its mode
// (config.Resolve). It starts no goroutine, connects to nothing and
// scans no files (Run does); it reads tools.lock when tools are enabled.
func New(cfg config.Config, opts Options) (*Worker, error) {
	if opts.URL == "" {
		return nil, errors.New("worker: no engine URL; give a ws:// or wss:// URL (iii.ResolveURL reads $III_URL and $III_ENGINE_URL)")
	}
	if opts.Name == "" {
		opts.Name = buildinfo.Name
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	w := &Worker{url: opts.URL, log: log, changes: newChangeQueue(), runOnce: newRunOnce(),
		configProblems: diagnostics.ConfigProblems(cfg.Problems)}
	w.client = iii.New(iii.Options{
		URL: opts.URL, Name: opts.Name, Namespace: opts.Namespace, Description: buildinfo.Description,
		Version: buildinfo.Version, Logger: log.Named("iii"),
		MaxResultBytes:   cfg.MaxResponseBytes,
		OversizeHint:     contract.OversizeHint,
		MaxFrameBytes:    int64(cfg.MaxFrameBytes),
		MaxBytesInFlight: int64(cfg.MaxBytesInFlight),
	})
	triggerTypes := []iii.TriggerType{
		changeTrigger(contract.SkillsOnChange, contract.SkillsOnChangeDescription, log),
		changeTrigger(contract.PromptsOnChange, contract.PromptsOnChangeDescription, log),
	}
	skillsChanged := w.client.ProvideTriggerType(triggerTypes[0])
	promptsChanged := w.client.ProvideTriggerType(triggerTypes[1])
	w.triggerTypes = len(triggerTypes)
	// Replicas on one engine take over from each other (docs/decisions.md D72).
	replica := iii.UniqueSuffix()
	w.client.FollowReplicas("skills::replica::" + replica)
	w.client.OnTakeOver(func() { w.cat.CatchUp() })
	skillsScope := catalog.NewSkillsScope(cfg.Scopes.Skills, int64(cfg.CacheBytes))
	w.skills = skillsScope
	promptsScope := catalog.NewPromptsScope(cfg.Scopes.Prompts)
	w.cat = catalog.New(w.client, cfg.StateTimeout(), log.Named("catalog"), skillsScope, promptsScope)
	w.cat.SetRereaders(catalog.ConcurrentRereads) // keeps up with another replica's writes (D72)
	src := fsource.FromConfig(cfg)
	w.tools = newToolSet(cfg, w.client, src, log)
	if len(cfg.Skills)+len(cfg.Prompts)+len(cfg.Roots) > 0 {
		// Files are watched and listings read the watch's snapshot; file
		// changes are announced like registrations (D20, D21), and tool
		// skills follow their files (D34), both from fanOut.
		w.watch = fsource.NewWatch(src, fsource.WatchOptions{
			PollInterval: cfg.FSPoll(), Logger: log.Named("fs"), OnChange: w.changes.put,
		})
	}
	// The one content view every surface reads (docs/data-path.md#the-content-view).
	fns := offered.New()
	view := catalog.NewView(catalog.ViewConfig{
		Skills: skillsScope, Prompts: promptsScope, Caller: w.client,
		SkillsScope: cfg.Scopes.Skills, PromptsScope: cfg.Scopes.Prompts, Timeout: cfg.StateTimeout(),
		Source: src, Watch: w.watch, BodyCacheBytes: int64(cfg.CacheBytes),
		Flagged: lint.Mode(cfg.Lint.Flagged), RevisionsKept: cfg.RevisionsKept,
		Functions: fns, Unavailable: requires.Mode(cfg.Unavailable),
	})
	w.reg = registry.New(registry.Config{
		SkillsScope:    cfg.Scopes.Skills,
		PromptsScope:   cfg.Scopes.Prompts,
		StateTimeout:   cfg.StateTimeout(),
		Caller:         w.client,
		SkillsChanged:  skillsChanged,
		PromptsChanged: promptsChanged,
		Logger:         log.Named("registry"),
		View:           view,

		MaxResponseBytes: cfg.MaxResponseBytes,
		PageSize:         cfg.PageSize,
		IndexMaxTokens:   cfg.IndexMaxTokens,
	})
	// Writes no state event announced are found by the reconcile, and
	// every change another writer made (another replica, another engine
	// sharing the store, any state client) is announced once, on this one
	// path. Only the replica the engine sends a type's subscribers to
	// holds any (iii/probe.go), so the others' announcements reach no one
	// (D72, D73).
	w.cat.SetReconcileInterval(cfg.Reconcile())
	w.cat.OnChange(announceStored(w.reg, cfg.Scopes))
	w.avail = newAvailability(w.client, fns, view, w.cat.Settled(), w.reg.AvailabilityChanged, log.Named("availability"))
	w.surfaces = newSurfaces(w.reg, cfg, w.client, log, w.diagnose)
	// Each replica's usage under its own key, so none overwrites another's (D84).
	w.usage = newUsage(cfg, w.client, view, opts.Name+"-"+replica, log.Named("usage"), func() int { return w.reg.Budgets().PageSize })
	w.functions = append(w.surfaces.functions(), w.usage.reporter.Function())
	w.live = newLiveConfig(w.client, cfg, log.Named("config"), w.applyLive)
	return w, nil
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

// diagnose adds to skills::diagnostics what only the worker knows: the
// engine link, the catalog's mode, the tool skills (D42), the embedder
// search calls (D50) and the config values that kept their defaults (D66).
func (w *Worker) diagnose(rep *diagnostics.Report) {
	if st, ok := w.surfaces.search.EmbedderStatus(); ok {
		rep.Search = &diagnostics.Search{Embedder: embedderRow(st)}
	}
	rep.Engine = &diagnostics.Engine{Connected: w.client.Connection() != "", StateTrigger: w.cat.Mode() == catalog.ModeLive}
	if rep.Catalog != nil {
		rep.Catalog.Mode = w.cat.Mode()
		rep.Catalog.Unloaded = rep.Catalog.Mode == catalog.ModeLive && !w.skills.Valid()
		rep.Catalog.Freshness = freshnessRow(w.cat.Freshness())
	}
	if w.tools != nil {
		rep.Tools = toolset.Rows(w.tools.Entries())
	}
	rep.Live = w.live.status()
	rep.ConfigProblems = w.configProblems
}

// Run serves the registry until ctx ends or Close is called (nil: a
// graceful shutdown, in-flight handlers given shutdownGrace) or the
// engine refuses the worker (ErrRefused). Everything it started has
// stopped when it returns. A worker runs once.
func (w *Worker) Run(ctx context.Context) error {
	ctx, finish, err := w.beginRun(ctx)
	if err != nil {
		return err
	}
	defer finish()

	for _, f := range w.functions {
		w.client.RegisterFunction(f)
	}
	w.log.Info("skills registered "+describeFunctions(w.functions), zap.String("engine", w.url))
	var fan sync.WaitGroup
	fanCtx, stopFan := context.WithCancel(context.Background())
	if w.watch != nil {
		w.watch.Start(ctx) // the first scan stops with ctx, so a signal is never kept waiting
		var synced uint64
		if w.tools != nil {
			snap := w.watch.Snapshot()
			w.tools.Sync(snap.Skills)
			synced = snap.Version
		}
		f := fanOut{changes: w.changes, announce: w.reg.FSChanged}
		if w.tools != nil {
			f.syncTools = w.tools.Sync
		}
		fan.Add(1)
		go func() {
			defer fan.Done()
			f.run(fanCtx, synced)
		}()
	}
	// Skills are judged against the engine's functions as they come and
	// go (D85).
	fan.Add(1)
	go func() {
		defer fan.Done()
		w.avail.run(fanCtx)
	}()
	// The search index follows the view's change feed (internal/search).
	fan.Add(1)
	go func() {
		defer fan.Done()
		w.surfaces.search.Follow(fanCtx)
	}()
	if w.tools != nil {
		w.tools.Start()
	}
	// Skill bodies are kept off the heap while the worker runs, in a file
	// that is gone when it stops (docs/decisions.md D54); opened here, not
	// in New, so a worker that never runs leaves no file.
	bodies := catalog.OpenBodyStore("", w.log.Named("catalog"))
	w.skills.UseBodyStore(bodies)
	w.client.Start()
	w.cat.Start()
	w.usage.flusher.Start()
	w.live.start(ctx)

	readyCtx, cancelReady := context.WithCancel(ctx)
	var ready sync.WaitGroup
	ready.Add(1)
	go func() {
		defer ready.Done()
		w.announceReady(readyCtx)
	}()

	var result error
	select {
	case <-ctx.Done():
	case <-w.client.Done():
		if err := w.client.Err(); err != nil {
			w.log.Error("the engine refused this worker; not reconnecting", zap.Error(err))
			result = fmt.Errorf("%w: %w", ErrRefused, err)
		}
	}
	cancelReady()
	ready.Wait()
	w.live.stop()
	w.log.Info("skills shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// The last usage counts, while the connection is up (D84); with no
	// connection the stop is not held up for them.
	flushCtx := shutdownCtx
	if w.client.Connection() == "" {
		var cancelFlush context.CancelFunc
		flushCtx, cancelFlush = context.WithCancel(shutdownCtx)
		cancelFlush()
	}
	if err := w.usage.flusher.Close(flushCtx); err != nil {
		w.log.Warn("usage counts since the last flush not written", zap.Error(err))
	}
	// In-flight handlers finish against a catalog that still follows the
	// engine; the catalog stops after them, then the files.
	if err := w.client.Shutdown(shutdownCtx); err != nil && !errors.Is(err, iii.ErrClosed) {
		w.log.Warn("shutdown did not finish cleanly", zap.Error(err))
	}
	w.cat.Close()
	if err := bodies.Close(); err != nil {
		w.log.Debug("closing the body store", zap.Error(err))
	}
	if w.watch != nil {
		w.watch.Close()
	}
	stopFan()
	fan.Wait()
	if w.tools != nil {
		w.tools.Close()
	}
	return result
}

// announceReady logs "skills ready" once the engine has every function,
// then the files' health, then, once the catalog has its scopes, what the
// content checks flagged.
func (w *Worker) announceReady(ctx context.Context) {
	if w.client.WaitReady(ctx) != nil {
		return
	}
	// The engine sends no acknowledgement of registrations, but it
	// handles one connection's frames in order and the handshake is
	// queued before any call: once a call made now is answered, every
	// function is registered, and "ready" is true for other workers too.
	if _, err := w.client.Call(ctx, "engine::functions::list", map[string]any{}); err != nil {
		if ctx.Err() != nil {
			return
		}
		w.log.Debug("could not confirm registration with engine::functions::list", zap.Error(err))
	}
	w.log.Info(fmt.Sprintf("skills ready: %d functions + %d custom trigger types", len(w.functions), w.triggerTypes), zap.String("worker_id", w.client.WorkerID()))
	w.surfaces.diag.LogFSHealth(ctx)
	// The content checks' log reads every entry: once the catalog has
	// its scopes, not through the engine beside their load (a 100,000-skill
	// scope read twice at once).
	select {
	case <-w.cat.Settled():
		w.surfaces.diag.LogLint(ctx)
		w.surfaces.diag.LogRequires(ctx)
	case <-ctx.Done():
	}
}

// Close stops the worker, as the end of Run's context does, and waits
// until Run has returned. It may be called at any time, more than once;
// a worker closed before Run never runs.
func (w *Worker) Close() error {
	w.closeRun()
	return nil
}
