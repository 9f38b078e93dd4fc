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
and reports what the worker would make of them: the config's unknown
(most often misspelt) keys, each file loaded, skipped
(with the reason), shadowed or served with a warning; each root; each tool
skill and its approval. Exits 1 when something is skipped or broken, a key
is unknown or the file named by --config does not exist, so it can gate a
deployment. Without --config, a missing ./config.yaml is no problem: the
worker boots with the defaults then. skills::diagnostics answers the same report from a
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
	file := configReport(*configPath, fs.Changed("config"), cfg, err)
	cfg = config.Resolve(cfg, modeOf(*dev))
	src := fsource.New(cfg.GlobBase(), cfg.Skills, cfg.Prompts, fsource.AllowPaths(cfg.AllowDirs()...),
		fsource.MaxFiles(cfg.MaxFiles), fsource.Roots(cfg.Roots...))
	scan := diagnostics.Scan{Roots: src.RootDirs()}
	scan.Skills, scan.SkillSkips = src.Skills()
	scan.Prompts, scan.PromptSkips = src.Prompts()
	rep := diagnostics.FromScan(scan)
	rep.Config = &file
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

// namedConfigMissing is what doctor and tools say of a file named with
// --config that does not exist: most likely a mistyped path.
const namedConfigMissing = "no such file; give the path of an existing config file to --config, or leave --config out to use ./config.yaml if present"

// configReport is what became of the config file: read (with any unknown
// keys), absent from the default path (the worker boots with the defaults
// then, so that is no problem), or missing where --config said (a problem:
// the path is most likely wrong). loadErr is Load's error, nil or not-exist.
func configReport(path string, named bool, cfg config.Config, loadErr error) diagnostics.ConfigFile {
	switch {
	case loadErr != nil && named:
		return diagnostics.ConfigFile{Path: path, Status: diagnostics.ConfigMissing,
			Reason: namedConfigMissing}
	case loadErr != nil:
		return diagnostics.ConfigFile{Path: path, Status: diagnostics.ConfigDefault,
			Reason: "no such file: the defaults apply, as they do for a worker started here without --config"}
	}
	c := diagnostics.ConfigFile{Path: path, Status: diagnostics.ConfigLoaded}
	for _, u := range cfg.UnknownKeys {
		c.UnknownKeys = append(c.UnknownKeys, diagnostics.UnknownKey{Key: u.Key, Line: u.Line, Reason: u.String()})
	}
	return c
}
