package diagnostics

import (
	"context"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Diagnoser builds the report of the worker's content view and serves it
// as skills::diagnostics; it also logs the boot scan (health.go).
type Diagnoser struct {
	view   *catalog.View
	add    func(*Report)
	log    *zap.Logger
	served *config.Config
}

// Config is what a Diagnoser needs.
type Config struct {
	// View is the content view the report describes; required.
	View *catalog.View
	// Add adds to the report what the worker knows and the view does not:
	// the engine link, the catalog's mode, the tool skills (D42).
	Add func(*Report)
	// Logger receives the boot scan's lines; default: no logging.
	Logger *zap.Logger
	// Served is the config the view's globs and roots come from: each
	// that finds nothing is reported under unmatched and warned of in the
	// boot scan (D66); nil checks nothing.
	Served *config.Config
}

// New returns a Diagnoser over cfg.View. It panics if the view is nil:
// that is a wiring mistake, caught at start-up.
func New(cfg Config) *Diagnoser {
	if cfg.View == nil {
		panic("diagnostics: Config.View is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	return &Diagnoser{view: cfg.View, add: cfg.Add, log: cfg.Logger, served: cfg.Served}
}

// skills::diagnostics (docs/decisions.md D42): what an operator would
// otherwise dig out of the logs.
const (
	descSkillsDiagnostics = "Reports every skill and prompt file found and what became of it (loaded, skipped, shadowed, warning, with the reason), the roots, the tool skills, the catalog and its cache, the engine link, the file watch and the reads per skill since boot."
)

// ReportedReads is how many skills' read counts skills::diagnostics
// reports at most, the most read first; reads_omitted counts the others
// (D64), so the answer stays small however many skills are read.
const ReportedReads = 1000

// emptyInput is the request of skills::diagnostics: nothing.
type emptyInput struct{}

// unmatched are the served config's globs and roots that find nothing
// in rep's files and roots.
func (d *Diagnoser) unmatched(rep Report) []Unmatched {
	if d.served == nil {
		return nil
	}
	return FindUnmatched(*d.served, rep.Files, rep.Roots, true)
}

// Function is skills::diagnostics.
func (d *Diagnoser) Function() iii.Function {
	return iii.NewFunction(contract.FnSkillsDiagnostics, descSkillsDiagnostics, func(ctx context.Context, _ emptyInput) (Report, error) {
		return d.Diagnose(ctx), nil
	})
}

// Diagnose builds the report: the files and roots from the overlay, what
// state shadows, the catalog, the reads, and whatever the worker adds
// (Config.Add: the engine link, the tools, the catalog's mode).
func (d *Diagnoser) Diagnose(ctx context.Context) Report {
	scan := Scan{}
	l, err := d.view.Skills(ctx)
	scan.Skills, scan.SkillSkips = l.Files.Skills, l.Files.SkillSkips
	scan.Prompts, scan.PromptSkips = l.Files.Prompts, l.Files.PromptSkips
	scan.Roots = d.view.RootDirs()
	rep := FromScan(scan)
	rep.Unmatched = d.unmatched(rep)
	if err == nil {
		hidden := make(map[string]bool, len(l.Shadowed))
		for _, s := range l.Shadowed {
			hidden[s.ID] = true
		}
		rep.MarkShadowedByState(catalog.KindSkill, func(id string) bool { return hidden[id] })
	}
	pl, perr := d.view.Prompts(ctx)
	if perr == nil {
		names := make(map[string]bool, len(pl.Shadowed))
		for _, p := range pl.Shadowed {
			names[p.Name] = true
		}
		rep.MarkShadowedByState(catalog.KindPrompt, func(name string) bool { return names[name] })
	}
	rep.Lint = lintOf(d.view.Flagged(), l, pl)
	rep.Availability = availabilityOf(d.view.Unavailable(), d.view.Offered(), l)
	if m := d.view.SkillsScope(); m != nil {
		used, budget, hits, misses := m.Stats()
		c := &Catalog{Skills: m.Len(), Bytes: used, CacheBytes: budget, CacheHits: hits, CacheMisses: misses}
		if err := m.BodyStoreFailure(); err != nil {
			c.BodyStore = "bodies kept in memory: " + err.Error()
			c.HeapBodies, c.HeapBytes = m.HeapBodies()
		}
		if p := d.view.PromptsScope(); p != nil {
			c.Prompts = p.Len()
		}
		rep.Catalog = c
	}
	if mode := d.view.WatchMode(); mode != "" {
		rep.Watch.Mode = mode
	}
	rep.Reads, rep.ReadsOmitted = d.view.TopReads(ReportedReads)
	rep.FileChanges, rep.FileChangesOmitted = d.view.FileChanges()
	if d.add != nil {
		d.add(&rep)
	}
	return rep
}
