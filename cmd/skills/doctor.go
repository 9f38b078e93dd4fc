package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/toolset"
)

const doctorUsage = `Usage: skills doctor [--config ./config.yaml] [--dev] [--json]

Reads the config and every file its globs and roots find, without an engine,
and reports what the worker would make of them: each file loaded, skipped
(with the reason), shadowed or served with a warning; each root; each tool
skill and its approval. Exits 1 when something is skipped or broken, so it
can gate a deployment. skills::diagnostics answers the same report from a
running worker, with the engine, the catalog and the reads added.

Flags:
`

// doctorCommand is "skills doctor": the diagnostics report offline (D42).
type doctorCommand struct{ io stdio }

func (c doctorCommand) Run(_ context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills doctor", pflag.ContinueOnError)
	configPath := fs.String("config", "config.yaml", "config file the worker uses")
	dev := fs.Bool("dev", false, "diagnose as skills dev serves: the usual Agent Skills folders when the config has no roots")
	asJSON := fs.Bool("json", false, "print the report as JSON (the shape of skills::diagnostics)")
	if help, err := parseFlags(fs, args, doctorUsage, c.io); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("skills doctor takes no arguments; run 'skills doctor --help' for usage")
	}
	cfg, err := config.Load(*configPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("skills doctor: %w", err)
	}
	cfg = config.Resolve(cfg, modeOf(*dev))
	src := fsource.New(cfg.GlobBase(), cfg.Skills, cfg.Prompts, fsource.AllowPaths(cfg.AllowDirs()...),
		fsource.MaxFiles(cfg.MaxFiles), fsource.Roots(cfg.Roots...))
	scan := diagnostics.Scan{Roots: src.RootDirs()}
	scan.Skills, scan.SkillSkips = src.Skills()
	scan.Prompts, scan.PromptSkips = src.Prompts()
	rep := diagnostics.FromScan(scan)
	found, err := findToolSkills(cfg)
	if err != nil {
		return err
	}
	rep.Tools = append(rep.Tools, toolset.Rows(found)...)
	if *asJSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(c.io.out, string(b))
	} else if err := rep.WriteText(c.io.out); err != nil {
		return err
	}
	if rep.Problems() > 0 {
		return errReported
	}
	return nil
}
