package worker

import (
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpskills"
	"github.com/iii-hq/skills-go/internal/registry"
	"github.com/iii-hq/skills-go/internal/roots"
	"github.com/iii-hq/skills-go/internal/search"
)

// surfaces are what the worker serves, each over the one content view:
// the 0.2 registry, the v0.3 roots functions, search, diagnostics and the
// MCP Skills extension.
type surfaces struct {
	reg    *registry.Registry
	roots  *roots.Roots
	search *search.Searcher
	diag   *diagnostics.Diagnoser
	mcp    *mcpskills.Extension
}

// newSurfaces builds the surfaces over reg's view; search and diagnostics
// (the boot scan) log under their own names beneath log, add completes the diagnostics report with what only
// the worker knows, client calls search.embedder when one is configured.
func newSurfaces(reg *registry.Registry, cfg config.Config, client caller, log *zap.Logger, add func(*diagnostics.Report)) surfaces {
	view := reg.View()
	searchCfg := search.SearcherConfig{View: view, Logger: log.Named("search")}
	if fn := cfg.Search.Embedder; fn != "" {
		searchCfg.Embedder = embedder{client: client, function: fn}
		searchCfg.EmbedderName = fn
		searchCfg.EmbedTimeout = cfg.Search.EmbedTimeout()
	}
	return surfaces{
		reg:    reg,
		roots:  roots.New(roots.Config{View: view, Configured: cfg.RootsSet}),
		search: search.NewSearcher(searchCfg),
		diag:   diagnostics.New(diagnostics.Config{View: view, Add: add, Logger: log.Named("diagnostics"), Served: &cfg}),
		mcp:    mcpskills.New(mcpskills.Config{View: view, PageSize: cfg.PageSize, MaxResponseBytes: cfg.MaxResponseBytes}),
	}
}

// functions are the surfaces' functions in registration order: 0.2's,
// the roots functions, search, diagnostics, the MCP Skills extension's,
// then the revisions' (D83; ExampleNew_functions lists them).
func (s surfaces) functions() []iii.Function {
	fns := append(s.reg.Functions(), s.roots.Functions()...)
	fns = append(fns, s.search.Function(), s.diag.Function())
	fns = append(fns, s.mcp.Functions()...)
	return append(fns, s.reg.RevisionFunctions()...)
}
