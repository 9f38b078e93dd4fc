package catalog

import (
	"sync"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// racyWindow is how recent a file's mtime may be for what was read of it
// to be kept: a file written again within the same clock tick, at the
// same size, could look unchanged (the rule git uses for its index).
const racyWindow = 2 * time.Second

// fileMetas keeps the Meta of each listed file while its Stamp holds: a
// listing reads a file only when it changed.
type fileMetas struct {
	mu     sync.Mutex
	byPath map[string]fileMeta
}

type fileMeta struct {
	stamp fsource.Stamp
	meta  Meta
}

func newFileMetas() *fileMetas { return &fileMetas{byPath: map[string]fileMeta{}} }

// metas returns the Meta of each file, in order, reading those whose
// stamp changed since they were last read; files no longer listed are
// forgotten.
func (c *fileMetas) metas(files []fsource.Skill, src *fsource.Source) []Meta {
	c.mu.Lock()
	old := c.byPath
	c.mu.Unlock()
	out := make([]Meta, len(files))
	next := make(map[string]fileMeta, len(files))
	for i, f := range files {
		if m, ok := old[f.Path]; ok && m.stamp.Equal(f.Stamp) {
			out[i], next[f.Path] = m.meta, m
			continue
		}
		out[i] = fileMetaOf(f, src)
		if time.Since(f.ModTime) >= racyWindow {
			next[f.Path] = fileMeta{stamp: f.Stamp, meta: out[i]}
		}
	}
	c.mu.Lock()
	c.byPath = next
	c.mu.Unlock()
	return out
}

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
		d := skillmd.Parse(string(raw))
		m.Name, m.Description = d.Name, d.Description
	}
	if err != nil {
		body = ""
	}
	m.Summary = skillmd.Summarize(f.ID, skillmd.Doc{Name: m.Name, Description: m.Description, Body: body})
	return m
}
