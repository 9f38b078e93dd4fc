package catalog

import (
	"sync"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/requires"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// racyWindow is how recent a file's mtime may be for what was read of it
// to be kept: a file written again within the same clock tick, at the
// same size, could look unchanged (the rule git uses for its index).
const racyWindow = 2 * time.Second

// Settled reports whether what was read of a file at stamp may be kept
// while the stamp holds: its mtime is older than the racy window.
func Settled(stamp fsource.Stamp) bool { return time.Since(stamp.ModTime()) >= racyWindow }

// byStamp keeps what was read of each listed file while its Stamp holds
// (docs/decisions.md D20, D41): a listing reads a file only when it
// changed. Files no longer listed are forgotten.
type byStamp[T any] struct {
	mu     sync.Mutex
	byPath map[string]stamped[T]
}

type stamped[T any] struct {
	stamp fsource.Stamp
	value T
}

func newByStamp[T any]() *byStamp[T] { return &byStamp[T]{byPath: map[string]stamped[T]{}} }

// listed is a file as a listing names it.
type listed struct {
	path  string
	stamp fsource.Stamp
}

// values returns the value of each file, in order, calling read(i) for
// those whose stamp changed since they were last read.
func (c *byStamp[T]) values(files []listed, read func(i int) T) []T {
	c.mu.Lock()
	old := c.byPath
	c.mu.Unlock()
	out := make([]T, len(files))
	next := make(map[string]stamped[T], len(files))
	for i, f := range files {
		if m, ok := old[f.path]; ok && m.stamp.Equal(f.stamp) {
			out[i], next[f.path] = m.value, m
			continue
		}
		out[i] = read(i)
		if Settled(f.stamp) {
			next[f.path] = stamped[T]{stamp: f.stamp, value: out[i]}
		}
	}
	c.mu.Lock()
	c.byPath = next
	c.mu.Unlock()
	return out
}

// listedOf names each file, by its path and Stamp, for byStamp.
func listedOf[F any](files []F, file func(F) (string, fsource.Stamp)) []listed {
	out := make([]listed, len(files))
	for i, f := range files {
		out[i].path, out[i].stamp = file(f)
	}
	return out
}

func skillFile(f fsource.Skill) (string, fsource.Stamp)   { return f.Path, f.Stamp }
func promptFile(f fsource.Prompt) (string, fsource.Stamp) { return f.Path, f.Stamp }

// fileMetaOf reads a listed file: its frontmatter and body as
// skillmd.Parse reads any skill, its digest, and its size as listed. A
// file that cannot be read keeps its place under what the scan knew of
// it; a body the worker would not serve (empty, too large) lends no
// title or description.
func fileMetaOf(f fsource.Skill, src *fsource.Source) Meta {
	m := Meta{Name: f.Name, Description: f.Description, Size: f.Size}
	raw, body, err := src.ReadSkill(f.Path)
	if raw != nil {
		m.SHA256 = sha256Hex(raw)
		text := string(raw)
		d := skillmd.Parse(text)
		m.Name, m.Description = d.Name, d.Description
		m.Lint = lint.Check(text)
		m.Requires = requires.Of(text)
	}
	if err != nil {
		body = ""
	}
	m.Summary = skillmd.Summarize(f.ID, skillmd.Doc{Name: m.Name, Description: m.Description, Body: body})
	return m
}

// get is the value kept for the file at path while its stamp holds.
func (c *byStamp[T]) get(path string, stamp fsource.Stamp) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.byPath[path]
	if !ok || !m.stamp.Equal(stamp) {
		var zero T
		return zero, false
	}
	return m.value, true
}
