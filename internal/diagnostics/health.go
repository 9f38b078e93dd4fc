package diagnostics

import (
	"context"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// LogFSHealth scans the filesystem overlay once and logs what it found
// (docs/reference.md#boot-scan plus docs/decisions.md D5): one info line per
// loaded skill and prompt, one warning per skipped file, per glob or root
// that finds nothing (D66) and per fs entry shadowed by a state row, and
// a summary. It reads state to find the
// shadowed entries, so call it once the engine connection is up; if state
// cannot be read it says so and reports no shadowed entries.
func (d *Diagnoser) LogFSHealth(ctx context.Context) {
	files := d.view.Files(ctx)
	skills, skillSkips := files.Skills, files.SkillSkips
	prompts, promptSkips := files.Prompts, files.PromptSkips

	for _, s := range skills {
		d.log.Info("loaded fs-backed skill", zap.String("id", s.ID), zap.String("path", s.Path))
	}
	for _, p := range prompts {
		d.log.Info("loaded fs-backed prompt", zap.String("name", p.Name), zap.String("path", p.Path))
	}
	skipped, warnings := 0, 0
	for _, skips := range [][]catalog.FileSkip{skillSkips, promptSkips} {
		for _, sk := range skips {
			if sk.Warning {
				d.log.Warn("fs entry served with a warning", zap.String("kind", sk.Kind), zap.String("path", sk.Path), zap.String("warning", sk.Reason))
				warnings++
				continue
			}
			d.log.Warn("skipped fs entry", zap.String("kind", sk.Kind), zap.String("path", sk.Path), zap.String("reason", sk.Reason))
			skipped++
		}
	}

	scan := Scan{Skills: skills, SkillSkips: skillSkips, Prompts: prompts, PromptSkips: promptSkips}
	scan.Roots = d.view.RootDirs()
	for _, u := range d.unmatched(FromScan(scan)) {
		d.log.Warn("glob or root finds nothing: "+u.Reason, zap.String("kind", u.Kind), zap.String("entry", u.Entry), zap.String("path", u.Path))
	}

	shadowed := 0
	if len(skills) > 0 {
		if l, stateErr := d.view.Skills(ctx); stateErr != nil {
			d.log.Warn("could not check fs skills against state", zap.Error(stateErr))
		} else {
			for _, s := range l.Shadowed {
				d.log.Warn("fs entry shadowed by state", zap.String("kind", "skill"), zap.String("id", s.ID), zap.String("path", s.Path))
			}
			shadowed += len(l.Shadowed)
		}
	}
	if len(prompts) > 0 {
		if pl, err := d.view.Prompts(ctx); err != nil {
			d.log.Warn("could not check fs prompts against state", zap.Error(err))
		} else {
			for _, p := range pl.Shadowed {
				d.log.Warn("fs entry shadowed by state", zap.String("kind", "prompt"), zap.String("name", p.Name), zap.String("path", p.Path))
			}
			shadowed += len(pl.Shadowed)
		}
	}

	fields := []zap.Field{
		zap.Int("skills", len(skills)),
		zap.Int("prompts", len(prompts)),
		zap.Int("skipped", skipped),
		zap.Int("shadowed", shadowed),
		zap.String("base_dir", d.base()),
	}
	if warnings > 0 { // a 0.2 overlay has none: its line stays as it was
		fields = append(fields, zap.Int("warnings", warnings))
	}
	d.log.Info("fs source scan complete", fields...)
}

// base is the files' glob base directory, "" without any.
func (d *Diagnoser) base() string {
	return d.view.Base()
}
