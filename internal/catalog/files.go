package catalog

import (
	"context"
	"io/fs"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// The file values the view hands the surfaces, named here so that a
// surface reads content through the view alone and imports nothing of
// the file source (docs/decisions.md D68). They are plain values: what a
// scan found of a file, never a way to read one.
type (
	// FileSkill is a skill file as a scan listed it.
	FileSkill = fsource.Skill
	// FilePrompt is a prompt file as a scan listed it.
	FilePrompt = fsource.Prompt
	// FileSkip is a matched file (or a pattern) that was not loaded, and why.
	FileSkip = fsource.Skip
	// FileSnapshot is the files at one moment, as the watch hands them on.
	FileSnapshot = fsource.Snapshot
	// Stamp is a file's change key (size, mtime, mode, inode, ctime).
	Stamp = fsource.Stamp
)

// FileSource and FileWatch are what the composition root builds once
// (fsource.FromConfig, fsource.NewWatch) and hands to NewView; a surface
// given one only passes it on to the view it builds (registry.Config, for
// tests and benchmarks), never reads through it.
type (
	FileSource = fsource.Source
	FileWatch  = fsource.Watch
)

// Kinds of a file entry, as diagnostics and skips name them.
const (
	KindSkill  = fsource.KindSkill
	KindPrompt = fsource.KindPrompt
)

// MaxBodyBytes is the largest body a skill may have, stored or on disk.
const MaxBodyBytes = fsource.MaxBodyBytes

// SkillFile is the name of an Agent Skill folder's main file.
const SkillFile = fsource.SkillFile

// StampOf stamps the file fi describes (a file's change key).
func StampOf(fi fs.FileInfo) Stamp { return fsource.StampOf(fi) }

// ReadFile reads a file with the checks of a listed file's read (regular,
// UTF-8, within the limit) but knowing no roots: for a caller that was
// given no view.
func ReadFile(path string) ([]byte, error) { return fsource.ReadFile(path) }

// ReadFile reads a listed file's bytes through the source's checked read
// (regular files inside the configured roots, UTF-8, within the limit):
// what search indexes and what a prompt file's body comes from.
func (v *View) ReadFile(path string) ([]byte, error) {
	if v.src == nil {
		return ReadFile(path)
	}
	return v.src.ReadFile(path)
}

// ReadBody is ReadFile with the frontmatter stripped: a markdown body.
func (v *View) ReadBody(path string) (string, error) {
	if v.src == nil {
		return fsource.ReadBody(path)
	}
	return v.src.ReadBody(path)
}

// RootDirs are the Agent Skills roots the files come from, absolute, in
// precedence order; none without files.
func (v *View) RootDirs() []string {
	if v.src == nil {
		return nil
	}
	return v.src.RootDirs()
}

// Base is the directory the files' relative globs resolve against; ""
// without files.
func (v *View) Base() string {
	if v.src == nil {
		return ""
	}
	return v.src.Base()
}

// WatchMode is how the files are followed (fsnotify or poll); "" without
// a watch.
func (v *View) WatchMode() string {
	if v.watch == nil {
		return ""
	}
	return v.watch.Mode()
}

// ExpandHome is a root as configured with a leading "~/" made the home
// directory, as the source reads it.
func ExpandHome(dir string) string { return fsource.ExpandHome(dir) }

// FolderFile is a file of a skill folder, as FolderFiles lists it.
type FolderFile = fsource.FolderFile

// Errors of the view's file reads, for errors.Is.
var (
	// ErrEscaped: a listed file now leads outside its root.
	ErrEscaped = fsource.ErrEscaped
	// ErrFolderTooLarge: a skill folder is past the limits of one skill.
	ErrFolderTooLarge = fsource.ErrFolderTooLarge
	// ErrNotText: a file read as text is not valid UTF-8 (a binary file
	// of a skill folder, D69).
	ErrNotText = fsource.ErrNotText
)

// ValidName reports whether name is a valid Agent Skills name (a
// folder's last segment).
func ValidName(name string) bool { return fsource.ValidName(name) }

// ReadBytes reads a listed file's bytes whatever they hold (a folder's
// scripts and assets), with the source's containment checks.
func (v *View) ReadBytes(path string) ([]byte, error) {
	if v.src == nil {
		return fsource.ReadBytes(path)
	}
	return v.src.ReadBytes(path)
}

// FolderFiles lists the files of the skill folder dir, within the limits
// of one skill; none without files.
func (v *View) FolderFiles(ctx context.Context, dir string) ([]FolderFile, error) {
	if v.src == nil {
		return nil, nil
	}
	return v.src.FolderFiles(ctx, dir)
}
