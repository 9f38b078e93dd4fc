package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// locateConfig is the config file of a command whose --config flag has
// the value path (given: set on the command line): --config when given,
// else $III_CONFIG, else the flag's default (config.Locate). The worker,
// skills dev, skills doctor, skills tools and skills mcp --dev all read
// it so.
func locateConfig(path string, given bool) config.Location {
	return config.Locate(path, given, os.Getenv)
}

// newSource is the file source of a resolved config, as the worker builds
// it (internal/worker): what skills doctor and skills tools scan.
func newSource(cfg config.Config, skills, prompts []string) *fsource.Source {
	return fsource.New(cfg.GlobBase(), skills, prompts, fsource.AllowPaths(cfg.AllowDirs()...),
		fsource.MaxFiles(cfg.MaxFiles), fsource.Roots(cfg.Roots...))
}

// servedPaths are the absolute globs and folders a resolved config serves,
// as the worker logs them at boot: what a relative entry became is the
// first thing to check when nothing is served.
type servedPaths struct {
	Base    string
	Skills  []string
	Prompts []string
	Roots   []string
	Allow   []string
}

func servedPathsOf(cfg config.Config) servedPaths {
	base := cfg.GlobBase()
	abs := func(patterns []string) []string {
		out := make([]string, len(patterns))
		for i, p := range patterns {
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			out[i] = filepath.Clean(p)
		}
		return out
	}
	src := newSource(cfg, nil, nil)
	return servedPaths{Base: base, Skills: abs(cfg.Skills), Prompts: abs(cfg.Prompts),
		Roots: src.RootDirs(), Allow: cfg.AllowDirs()}
}

// found is what a scan of a config's globs and roots turned up: the
// paths each kind of glob matched (loaded or skipped) and the skills
// found per root folder.
type found struct {
	skillPaths, promptPaths []string
	perRoot                 map[string]int
}

func foundOf(skills []fsource.Skill, skillSkips []fsource.Skip, prompts []fsource.Prompt, promptSkips []fsource.Skip) found {
	f := found{perRoot: map[string]int{}}
	for _, s := range skills {
		f.skillPaths = append(f.skillPaths, s.Path)
		if s.Root != "" {
			f.perRoot[s.Root]++
		}
	}
	for _, s := range skillSkips {
		f.skillPaths = append(f.skillPaths, s.Path)
	}
	for _, p := range prompts {
		f.promptPaths = append(f.promptPaths, p.Path)
	}
	for _, s := range promptSkips {
		f.promptPaths = append(f.promptPaths, s.Path)
	}
	return f
}

// unmatchedRelative warns of each relative glob or root the config file
// names that finds nothing (docs/decisions.md D57): the symptom of a
// config read against another directory than its author meant, such as a
// file iii compose wrote (relative to the worker's working directory)
// inspected with --config (relative to the file's own directory). It is a
// warning, not a problem: an empty folder is also how a deployment
// starts, and a missing root is served once it appears (D30). cfg is the
// config as loaded, before config.Resolve adds any roots; checkPrompts is
// false where only skills were scanned (skills tools).
func unmatchedRelative(cfg config.Config, f found, checkPrompts bool) []string {
	base := cfg.GlobBase()
	why := relativeBaseReason(cfg)
	var out []string
	globs := func(kind string, patterns, paths []string) {
		for _, p := range patterns {
			if filepath.IsAbs(p) || matchesAny(base, p, paths) {
				continue
			}
			out = append(out, fmt.Sprintf("the relative %s glob %q matches nothing under %s (%s)", kind, p, base, why))
		}
	}
	globs("skills", cfg.Skills, f.skillPaths)
	if checkPrompts {
		globs("prompts", cfg.Prompts, f.promptPaths)
	}
	for _, r := range cfg.Roots {
		if filepath.IsAbs(r) || r == "~" || strings.HasPrefix(r, "~/") {
			continue
		}
		if dir := filepath.Join(base, r); f.perRoot[dir] == 0 {
			out = append(out, fmt.Sprintf("the relative root %q finds no skills in %s (%s)", r, dir, why))
		}
	}
	return out
}

// matchesAny reports whether the relative pattern matches one of paths
// (absolute) under base.
func matchesAny(base, pattern string, paths []string) bool {
	pattern = filepath.Clean(pattern)
	for _, p := range paths {
		rel, err := filepath.Rel(base, p)
		if err != nil {
			continue
		}
		if ok, _ := doublestar.PathMatch(pattern, rel); ok {
			return true
		}
	}
	return false
}

// relativeBaseReason says why relative paths resolve where they do.
func relativeBaseReason(cfg config.Config) string {
	switch {
	case cfg.BaseDir != "":
		return "relative paths resolve against base_dir"
	case cfg.Origin == config.OriginEnv:
		return "a config named by $" + config.EnvConfig + " resolves relative paths against the working directory, which iii compose sets to the worker's directory; run from there"
	case cfg.Dir != "":
		return "relative paths resolve against the config file's directory; set base_dir to resolve them elsewhere"
	}
	return "no config file was read, so relative paths resolve against the working directory"
}
