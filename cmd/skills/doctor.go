package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/offered"
	"github.com/iii-hq/skills-go/internal/requires"
	"github.com/iii-hq/skills-go/internal/toolset"
)

const doctorUsage = `Usage: skills doctor [--config ./config.yaml] [--dev] [--json] [--lint-all] [--url ws://…]

Reads the config and every file its globs and roots find, without an engine,
and reports what the worker would make of them: the config's unknown
(most often misspelt) keys, each file loaded, skipped
(with the reason), shadowed or served with a warning; each root; each tool
skill and its approval; and what the content checks flag in each file
(hidden Unicode, instructions aimed at the agent, credential paths,
download-and-run lines, an oversized frontmatter), counted per rule with
the first few of each (--lint-all lists every one); and what each skill
requires (its iii://fn links, its frontmatter's requires) with every
requirement that cannot be read, and, given --url, which skills the engine
there cannot serve now. Findings are no problem for the exit status. Every config problem is reported: a key whose
value cannot be used (it keeps its default, as in the worker) or a file that
is not YAML keys (the defaults apply), and the files are checked all the
same. Exits 1 when something is skipped or broken, a config value is
invalid, a key is unknown or the file named by --config (or, without it, by $III_CONFIG)
does not exist, so it can gate a deployment. Without either, a missing
./config.yaml is no problem: the worker boots with the defaults then. A
glob or root that finds nothing is a warning on stderr (and under unmatched
in --json); a relative one names the directory it was resolved against
(under $III_CONFIG, the working directory: run doctor where the worker
runs). Without --dev, a note on stderr says when skills dev, run here,
would also serve skills from the Agent Skills folders (a config without a
roots key). skills::diagnostics answers
the same report from a running worker, with the engine, the catalog and
the reads added.

Flags:
`

// doctorCommand is "skills doctor": the diagnostics report offline (D42).
type doctorCommand struct{ io stdio }

func (c doctorCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills doctor", pflag.ContinueOnError)
	configPath := fs.String("config", "config.yaml", "config file the worker uses")
	dev := fs.Bool("dev", false, "diagnose as skills dev serves: the usual Agent Skills folders when the config has no roots")
	asJSON := fs.Bool("json", false, "print the report as JSON (the shape of skills::diagnostics)")
	lintAll := fs.Bool("lint-all", false, "list every file the content checks flag, not the first few per rule")
	url := fs.String("url", "", "check the skills' requirements against the functions of the iii engine at this URL (default: no engine is asked)")
	namespace := registerNamespace(fs)
	if help, err := parseFlags(fs, args, doctorUsage, c.io); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("skills doctor takes no arguments; run 'skills doctor --help' for usage")
	}
	loc := locateConfig(*configPath, fs.Changed("config"))
	loaded, err := config.LoadAt(loc)
	file := configReport(loc, loaded, err)
	cfg := config.Resolve(loaded, modeOf(*dev))
	src := newSource(cfg, cfg.Skills, cfg.Prompts)
	scan := diagnostics.Scan{Roots: src.RootDirs()}
	scan.Skills, scan.SkillSkips = src.Skills()
	scan.Prompts, scan.PromptSkips = src.Prompts()
	rep := diagnostics.FromScan(scan)
	rep.Unmatched = diagnostics.FindUnmatched(loaded, rep.Files, rep.Roots, true)
	for _, u := range rep.Unmatched {
		fmt.Fprintln(c.io.err, "skills doctor: warning: "+u.Reason)
	}
	if !*dev {
		if note := devNote(loaded); note != "" {
			fmt.Fprintln(c.io.err, "skills doctor: note: "+note)
		}
	}
	rep.Config = &file
	rep.ConfigProblems = diagnostics.ConfigProblems(loaded.Problems)
	rep.Lint = diagnostics.LintFiles(src, scan, lint.Mode(cfg.Lint.Flagged))
	var fns offered.Snapshot
	if fs.Changed("url") {
		ns, err := namespaceOf(fs, *namespace)
		if err != nil {
			return err
		}
		if fns, err = engineFunctions(ctx, *url, ns); err != nil {
			return err
		}
	}
	rep.Availability = diagnostics.AvailabilityFiles(src, scan, requires.Mode(cfg.Unavailable), fns)
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
	} else if err := rep.WriteTextLint(c.io.out, *lintAll); err != nil {
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

// envConfigMissing is what they say of a file $III_CONFIG names that does
// not exist: iii compose removes the file with its project, so the
// variable is most likely left over from another shell.
const envConfigMissing = "no such file; $" + config.EnvConfig + " names it: point " + config.EnvConfig +
	" at the file iii compose wrote (compose::status shows the project's state_dir; the file is config/<container>.yaml there), unset it to use ./config.yaml, or give --config"

// missingReason is what a command says of a named config file that does
// not exist, by what named it.
func missingReason(loc config.Location) string {
	if loc.Origin == config.OriginEnv {
		return envConfigMissing
	}
	return namedConfigMissing
}

// envNote is appended to a config error when $III_CONFIG named the file.
func envNote(loc config.Location) string {
	if loc.Origin == config.OriginEnv {
		return " (the file $" + config.EnvConfig + " names)"
	}
	return ""
}

// configReport is what became of the config file: read (with any unknown
// keys), unreadable as YAML keys (a problem: the worker boots with the
// defaults), absent from the default path (the worker boots with the defaults
// then, so that is no problem), or missing where --config or $III_CONFIG
// said (a problem: the path is most likely wrong). loadErr is Load's
// error.
func configReport(loc config.Location, cfg config.Config, loadErr error) diagnostics.ConfigFile {
	switch {
	case loadErr != nil && !errors.Is(loadErr, os.ErrNotExist):
		// The worker logs this and boots with the defaults: so does doctor.
		return diagnostics.ConfigFile{Path: loc.Path, Status: diagnostics.ConfigInvalid,
			Reason: loadErr.Error() + envNote(loc) + "; the defaults apply, as they do for the worker"}
	case loadErr != nil && loc.Named():
		return diagnostics.ConfigFile{Path: loc.Path, Status: diagnostics.ConfigMissing,
			Reason: missingReason(loc)}
	case loadErr != nil:
		return diagnostics.ConfigFile{Path: loc.Path, Status: diagnostics.ConfigDefault,
			Reason: "no such file: the defaults apply, as they do for a worker started here without --config"}
	}
	c := diagnostics.ConfigFile{Path: loc.Path, Status: diagnostics.ConfigLoaded}
	switch {
	case loc.Origin == config.OriginEnv && cfg.BaseDir != "":
		c.Reason = "named by $" + config.EnvConfig + "; its relative paths resolve against base_dir, " + cfg.GlobBase()
	case loc.Origin == config.OriginEnv:
		c.Reason = "named by $" + config.EnvConfig + "; its relative paths resolve against the working directory, " + cfg.RelativeTo()
	}
	for _, u := range cfg.UnknownKeys {
		c.UnknownKeys = append(c.UnknownKeys, diagnostics.UnknownKey{Key: u.Key, Line: u.Line, Reason: u.String()})
	}
	return c
}

// devNote says so when skills dev, run here, would serve skills that a
// worker (and doctor without --dev) does not: a config without a roots
// key, and skills in the Agent Skills folders dev serves then (D30, D66).
// "" otherwise.
func devNote(loaded config.Config) string {
	if loaded.RootsSet {
		return ""
	}
	devCfg := config.Resolve(loaded, config.ModeDev)
	skills, _ := newSource(devCfg, nil, nil).Skills()
	if len(skills) == 0 {
		return ""
	}
	var dirs []string
	seen := map[string]bool{}
	for _, s := range skills {
		if !seen[s.Root] {
			seen[s.Root] = true
			dirs = append(dirs, s.Root)
		}
	}
	n := fmt.Sprintf("%d skills", len(skills))
	if len(skills) == 1 {
		n = "1 skill"
	}
	return fmt.Sprintf("skills dev would also serve %s from %s, which this report leaves out: without a roots key only skills dev serves the Agent Skills folders; run skills doctor --dev to check what skills dev serves",
		n, strings.Join(dirs, ", "))
}
