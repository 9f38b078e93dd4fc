package main

import (
	"os"
	"path/filepath"

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
// it (fsource.FromConfig), over the skill and prompt globs given in place
// of the config's: what skills doctor and skills tools scan.
func newSource(cfg config.Config, skills, prompts []string) *fsource.Source {
	cfg.Skills, cfg.Prompts = skills, prompts
	return fsource.FromConfig(cfg)
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
