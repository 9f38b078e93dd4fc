// Package fsource is the filesystem overlay: markdown skills and prompts
// matched by glob patterns from the worker config. Nothing is cached:
// patterns are expanded and files re-read on every call, so an edit is
// visible on the next call.
//
// Patterns use doublestar syntax (worker.md D4): `*` and `?` within one
// path segment, `**` across directories, `[abc]`/`[!abc]` classes and
// `{a,b}` alternation; `\` escapes the next character on Unix. Matching is
// case-sensitive, `*` also matches dotfiles, and symbolic links are
// followed. Relative patterns resolve against Source.Base (D10); absolute
// patterns are used as they are.
package fsource

import (
	"path/filepath"
	"slices"
	"time"
)

// Skip kinds.
const (
	KindSkill  = "skill"
	KindPrompt = "prompt"
)

// Skill is a filesystem-backed skill.
type Skill struct {
	ID      string    // derived from the path (see reference-behaviour.md §10.3)
	Path    string    // absolute path of the file
	Size    int64     // file size in bytes, frontmatter included
	ModTime time.Time // zero when unavailable
}

// Prompt is a filesystem-backed prompt.
type Prompt struct {
	Name        string // frontmatter name, else the file's base name
	Description string // frontmatter description, trimmed, never empty
	Path        string
	Size        int64
	ModTime     time.Time
}

// Skip is a matched file (or a pattern) that was not loaded, and why.
type Skip struct {
	Kind   string // "skill" or "prompt"
	Path   string // the file, or the pattern for an invalid pattern
	Reason string
}

// Source expands the configured patterns.
type Source struct {
	base           string
	skillPatterns  []string
	promptPatterns []string
}

// New returns a Source whose relative patterns resolve against base. A
// relative base is made absolute against the current directory now, so
// that every path the Source reports is absolute; an empty base means the
// current directory.
func New(base string, skillPatterns, promptPatterns []string) *Source {
	if abs, err := filepath.Abs(base); err == nil {
		base = abs
	}
	return &Source{
		base:           base,
		skillPatterns:  slices.Clone(skillPatterns),
		promptPatterns: slices.Clone(promptPatterns),
	}
}

// Base is the directory relative patterns resolve against.
func (s *Source) Base() string { return s.base }
