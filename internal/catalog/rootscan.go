package catalog

import (
	"context"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// RootScan is a scan of Agent Skills roots apart from the view's files:
// the roots functions' upstream defaults, or roots a caller named
// (docs/decisions.md D48). Relative roots resolve as the view's globs do;
// its reads check containment against its own roots.
type RootScan struct{ src *fsource.Source }

// ScanRoots returns a scan over dirs; nothing is read until Skills.
func (v *View) ScanRoots(dirs ...string) *RootScan {
	return &RootScan{src: fsource.New(v.Base(), nil, nil, fsource.Roots(dirs...))}
}

// Skills lists the skill files under the roots now.
func (r *RootScan) Skills(ctx context.Context) []FileSkill {
	skills, _ := r.src.SkillsContext(ctx)
	return skills
}

// RootDirs are the scan's roots, absolute, in order.
func (r *RootScan) RootDirs() []string { return r.src.RootDirs() }

// ReadFile reads a file the scan listed, as View.ReadFile does.
func (r *RootScan) ReadFile(path string) ([]byte, error) { return r.src.ReadFile(path) }

// ReadBody is ReadFile with the frontmatter stripped.
func (r *RootScan) ReadBody(path string) (string, error) { return r.src.ReadBody(path) }

// AllowDirs are the allow_paths directories of the view's files,
// absolute; none without files.
func (v *View) AllowDirs() []string {
	if v.src == nil {
		return nil
	}
	return v.src.AllowDirs()
}
