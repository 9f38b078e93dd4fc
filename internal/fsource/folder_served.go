package fsource

import (
	"path"
	"path/filepath"

	"github.com/iii-hq/skills-go/internal/ids"
)

// servedOnly keeps the files of the skill folder dir that a root's
// listing serves (docs/decisions.md D69), so that the MCP Skills
// extension and iii:// see one set: a file over the body limit, a path
// the file id rule refuses and every file of a collision are left out,
// as rootSkills leaves them out (and reports why).
func (s *Source) servedOnly(dir string, files []FolderFile) []FolderFile {
	prefix := filepath.Base(dir)
	for _, root := range s.rootDirs {
		if within(root, dir) && root != dir {
			prefix = filepath.ToSlash(mustRel(root, dir))
			break
		}
	}
	rels := make([]string, len(files))
	for i, f := range files {
		rels[i] = path.Join(prefix, f.Rel)
	}
	byID, _, _ := ids.Assign(rels)
	assigned := make(map[string]bool, len(byID))
	for _, rel := range byID {
		assigned[rel] = true
	}
	kept := files[:0]
	for i, f := range files {
		if assigned[rels[i]] && oversized(f.Path, f.Size, s.openedInside) == "" {
			kept = append(kept, f)
		}
	}
	return kept
}
