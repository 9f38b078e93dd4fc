package registry

import (
	"context"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
)

// skills::diagnostics (docs/decisions.md D42): what an operator would
// otherwise dig out of the logs.
const (
	descSkillsDiagnostics = "Reports every skill and prompt file found and what became of it (loaded, skipped, shadowed, warning, with the reason), the roots, the tool skills, the catalog and its cache, the engine link, the file watch and the reads per skill since boot."
)

// DiagnosticsFunction is skills::diagnostics, registered after search.
func (r *Registry) DiagnosticsFunction() iii.Function {
	return iii.NewFunction(contract.FnSkillsDiagnostics, descSkillsDiagnostics, func(ctx context.Context, _ emptyInput) (diagnostics.Report, error) {
		return r.Diagnose(ctx), nil
	})
}

// Diagnose builds the report: the files and roots from the overlay, what
// state shadows, the catalog, the reads, and whatever the worker adds
// (Config.Diagnose: the engine link, the tools, the watch).
func (r *Registry) Diagnose(ctx context.Context) diagnostics.Report {
	scan := diagnostics.Scan{}
	l, err := r.skillListing(ctx)
	scan.Skills, scan.SkillSkips = l.Files.Skills, l.Files.SkillSkips
	scan.Prompts, scan.PromptSkips = l.Files.Prompts, l.Files.PromptSkips
	if r.fs != nil {
		scan.Roots = r.fs.RootDirs()
	}
	rep := diagnostics.FromScan(scan)
	if err == nil {
		hidden := make(map[string]bool, len(l.Shadowed))
		for _, s := range l.Shadowed {
			hidden[s.ID] = true
		}
		rep.MarkShadowedByState(fsource.KindSkill, func(id string) bool { return hidden[id] })
	}
	if pl, err := r.view.Prompts(ctx); err == nil {
		names := make(map[string]bool, len(pl.Shadowed))
		for _, p := range pl.Shadowed {
			names[p.Name] = true
		}
		rep.MarkShadowedByState(fsource.KindPrompt, func(name string) bool { return names[name] })
	}
	if m := r.view.SkillsScope(); m != nil {
		used, budget, hits, misses := m.Stats()
		c := &diagnostics.Catalog{Skills: m.Len(), Bytes: used, CacheBytes: budget, CacheHits: hits, CacheMisses: misses}
		if p := r.view.PromptsScope(); p != nil {
			c.Prompts = p.Len()
		}
		rep.Catalog = c
	}
	if r.fsWatch != nil {
		rep.Watch.Mode = r.fsWatch.Mode()
	}
	rep.Reads = r.view.Reads()
	if r.diagnose != nil {
		r.diagnose(&rep)
	}
	return rep
}
