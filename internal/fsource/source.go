// Package fsource is the filesystem overlay: markdown skills and prompts
// matched by glob patterns from the worker config. Nothing is cached:
// patterns are expanded and files re-read on every call, so an edit is
// visible on the next call.
package fsource

import "time"

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

// New returns a Source whose relative patterns resolve against base.
func New(base string, skillPatterns, promptPatterns []string) *Source {
	return &Source{base: base, skillPatterns: skillPatterns, promptPatterns: promptPatterns}
}

// Base is the directory relative patterns resolve against.
func (s *Source) Base() string { return s.base }

// Skills expands the skill patterns: the valid skills sorted by id (first
// match wins on duplicate ids) and the skipped files with their reasons.
func (s *Source) Skills() ([]Skill, []Skip) { panic("fsource: not implemented") }

// Prompts expands the prompt patterns: the valid prompts sorted by name and
// the skipped files with their reasons.
func (s *Source) Prompts() ([]Prompt, []Skip) { panic("fsource: not implemented") }

// ReadBody reads a file fresh and returns its body with any frontmatter
// removed, or an error worded as in reference-behaviour.md §10.4
// ("read <path>: …", "file <path> has empty body", "file <path> is too
// large (<n> bytes; max 262144)").
func ReadBody(path string) (string, error) { panic("fsource: not implemented") }
