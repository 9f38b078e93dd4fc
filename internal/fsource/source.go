// Package fsource is the filesystem overlay: markdown skills and prompts
// matched by glob patterns from the worker config, and Agent Skills
// folders under roots. A scan stats every match (each listed file carries
// its Stamp, the one test of whether it changed); a Watch keeps the last
// scan and rescans when files change; bodies are read on demand.
//
// Patterns use doublestar syntax (docs/decisions.md D4): `*` and `?` within one
// path segment, `**` across directories, `[abc]`/`[!abc]` classes and
// `{a,b}` alternation; `\` escapes the next character on Unix. Matching is
// case-sensitive, `*` also matches dotfiles, and symbolic links are
// followed within the limits below. Relative patterns resolve against
// Source.Base (docs/decisions.md D10); absolute patterns are used as they
// are.
//
// Hardening (docs/decisions.md D24, D25): a pattern's root is its static prefix,
// the directory before its first glob character. Symbolic links are
// followed while they stay inside the root; a file or directory whose real
// path leaves it is skipped with a reason naming the link, its target and
// allow_paths, unless an allow_paths directory holds the target. Walks
// skip directory loops, stop 32 directories below the root and after
// max_files directory entries, and stop when the caller's context ends.
// Only regular files are served; FIFOs, sockets and devices are skipped
// with a reason, and files are opened without blocking and re-checked
// after opening.
package fsource

import (
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/iii-hq/skills-go/internal/config"
)

// Skip kinds.
const (
	KindSkill  = "skill"
	KindPrompt = "prompt"
)

// Skill is a filesystem-backed skill.
type Skill struct {
	ID      string    // derived from the path (see docs/reference.md#ids-from-paths), or from its folder under a root
	Path    string    // absolute path of the file
	Size    int64     // file size in bytes, frontmatter included
	ModTime time.Time // zero when unavailable
	// Stamp is the file's change key as the scan saw it: the one test of
	// whether a file changed (size, mtime, mode, inode, ctime).
	Stamp Stamp

	// Under a root (docs/decisions.md D30): the root, and for the SKILL.md
	// of a skill folder (not its other files) the frontmatter's name and
	// description, which the index uses (D31).
	Root        string
	SkillFile   bool
	Name        string
	Description string
}

// Prompt is a filesystem-backed prompt.
type Prompt struct {
	Name        string // frontmatter name, else the file's base name
	Description string // frontmatter description, trimmed, never empty
	Path        string
	Size        int64
	ModTime     time.Time
	Stamp       Stamp // the file's change key, as for Skill
}

// Skip is a matched file (or a pattern) that was not loaded, and why.
type Skip struct {
	Kind   string // "skill" or "prompt"
	Path   string // the file, or the pattern for an invalid pattern
	Reason string
	// Warning marks a file that is served all the same: Reason is what is
	// wrong with it (a SKILL.md's frontmatter, D31).
	Warning bool
}

// Source expands the configured patterns.
type Source struct {
	base           string
	skillPatterns  []string
	promptPatterns []string
	allow          []string // allow_paths, absolute and cleaned
	maxFiles       int      // max_files
	rootDirs       []string // roots, absolute and cleaned, in precedence order

	// containers are the real paths of the roots and allow_paths as a
	// read last resolved them (containsReal).
	containers atomic.Pointer[[]string]
}

// Option configures a Source.
type Option func(*Source)

// AllowPaths lets symbolic links under a glob reach files inside these
// directories (the allow_paths config key, docs/decisions.md D24). Relative
// directories resolve against the Source's base.
func AllowPaths(dirs ...string) Option {
	return func(s *Source) { s.allow = append(s.allow, dirs...) }
}

// MaxFiles bounds the directory entries one pattern's walk reads (the
// max_files config key, docs/decisions.md D25); n < 1 means
// config.DefaultMaxFiles.
func MaxFiles(n int) Option {
	return func(s *Source) { s.maxFiles = n }
}

// New returns a Source whose relative patterns resolve against base. A
// relative base is made absolute against the current directory now, so
// that every path the Source reports is absolute; an empty base means the
// current directory.
func New(base string, skillPatterns, promptPatterns []string, opts ...Option) *Source {
	if abs, err := filepath.Abs(base); err == nil {
		base = abs
	}
	s := &Source{
		base:           base,
		skillPatterns:  slices.Clone(skillPatterns),
		promptPatterns: slices.Clone(promptPatterns),
	}
	for _, opt := range opts {
		opt(s)
	}
	for i, dir := range s.allow {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		s.allow[i] = filepath.Clean(dir)
	}
	if s.maxFiles < 1 {
		s.maxFiles = config.DefaultMaxFiles
	}
	var roots []string
	for _, dir := range s.rootDirs {
		dir = ExpandHome(dir)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		if dir = filepath.Clean(dir); !slices.Contains(roots, dir) {
			roots = append(roots, dir)
		}
	}
	s.rootDirs = roots
	return s
}

// Base is the directory relative patterns resolve against.
func (s *Source) Base() string { return s.base }
