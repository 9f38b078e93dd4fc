package diagnostics

import (
	"fmt"
	"path/filepath"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
)

// Unmatched is a glob or root the config file names that finds nothing
// (docs/decisions.md D57, D66): a warning, not a problem, since an empty
// folder is also how a deployment starts and a missing root is served
// once it appears (D30), but the first thing to check when nothing is
// served.
type Unmatched struct {
	Kind   string `json:"kind"`   // "skills" or "prompts" (a glob), or "root"
	Entry  string `json:"entry"`  // as the config writes it
	Path   string `json:"path"`   // made absolute
	Reason string `json:"reason"` // what it found and why a relative entry resolved there
}

// FindUnmatched lists each of cfg's globs and roots that finds nothing
// among files (the report's files, each kind's paths) and roots (the
// report's roots, with the skills each serves). Roots a mode added
// (config.Config.RootsByMode) are not checked; prompts only when
// checkPrompts (skills tools scans skills alone).
func FindUnmatched(cfg config.Config, files []File, roots []Root, checkPrompts bool) []Unmatched {
	base := cfg.GlobBase()
	why := relativeBaseReason(cfg)
	var out []Unmatched
	globs := func(kind string, patterns []string) {
		for _, p := range patterns {
			abs := filepath.Clean(p)
			if !filepath.IsAbs(p) {
				abs = filepath.Join(base, p)
			}
			if globMatchesAny(base, p, kind, files) {
				continue
			}
			u := Unmatched{Kind: kind, Entry: p, Path: abs}
			if filepath.IsAbs(p) {
				u.Reason = fmt.Sprintf("the %s glob %q matches nothing", kind, p)
			} else {
				u.Reason = fmt.Sprintf("the relative %s glob %q matches nothing under %s (%s)", kind, p, base, why)
			}
			out = append(out, u)
		}
	}
	globs(catalog.KindSkill+"s", cfg.Skills)
	if checkPrompts {
		globs(catalog.KindPrompt+"s", cfg.Prompts)
	}
	if cfg.RootsByMode {
		return out
	}
	perRoot := make(map[string]int, len(roots))
	for _, r := range roots {
		perRoot[r.Path] += r.Skills
	}
	for _, r := range cfg.Roots {
		dir := catalog.ExpandHome(r)
		relative := !filepath.IsAbs(dir)
		if relative {
			dir = filepath.Join(base, dir)
		}
		dir = filepath.Clean(dir)
		if perRoot[dir] > 0 {
			continue
		}
		u := Unmatched{Kind: "root", Entry: r, Path: dir}
		if relative {
			u.Reason = fmt.Sprintf("the relative root %q finds no skills in %s (%s)", r, dir, why)
		} else {
			u.Reason = fmt.Sprintf("the root %q finds no skills in %s", r, dir)
		}
		out = append(out, u)
	}
	return out
}

// globMatchesAny reports whether pattern (relative to base, or absolute)
// matches one of the files of its kind ("skills" or "prompts").
func globMatchesAny(base, pattern, kind string, files []File) bool {
	pattern = filepath.Clean(pattern)
	for _, f := range files {
		if f.Kind+"s" != kind {
			continue
		}
		target := f.Path
		if !filepath.IsAbs(pattern) {
			rel, err := filepath.Rel(base, f.Path)
			if err != nil {
				continue
			}
			target = rel
		}
		if ok, _ := doublestar.PathMatch(pattern, target); ok {
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
