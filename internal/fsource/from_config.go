package fsource

import "github.com/iii-hq/skills-go/internal/config"

// FromConfig is the Source a resolved config (config.Resolve) serves: its
// skill and prompt globs against its glob base, its allow_paths, max_files
// and roots. It is the one constructor of the worker, skills doctor and
// skills tools (docs/decisions.md D68), so the three scan the same files;
// a command that looks at fewer kinds clears them from cfg first.
func FromConfig(cfg config.Config) *Source {
	return New(cfg.GlobBase(), cfg.Skills, cfg.Prompts, AllowPaths(cfg.AllowDirs()...),
		MaxFiles(cfg.MaxFiles), Roots(cfg.Roots...))
}
