package fsource

import (
	"cmp"
	"fmt"
	"os"
	"slices"

	"github.com/iii-hq/skills-go/internal/ids"
)

// Skills expands the skill patterns: the valid skills sorted by id (first
// match wins on duplicate ids; the same file giving the same id again is
// dropped silently) and the skipped files with their reasons, in the
// order they were found.
//
// Files are only stat'ed, never read: a skill needs no frontmatter, and
// its body is checked when it is read (ReadBody). Directories and other
// non-regular files are ignored; a match that cannot be stat'ed (a broken
// symbolic link, a permission error) is skipped with reason "stat: …".
func (s *Source) Skills() ([]Skill, []Skip) {
	matches, skips := s.expand(KindSkill, s.skillPatterns)
	var skills []Skill
	first := make(map[string]string) // id -> path of the skill that won it
	for _, m := range matches {
		fi, err := os.Stat(m.path)
		if err != nil {
			skips = append(skips, Skip{Kind: KindSkill, Path: m.path, Reason: "stat: " + unwrapPath(err).Error()})
			continue
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		id, err := deriveID(m.prefix, m.path)
		if err != nil {
			skips = append(skips, Skip{Kind: KindSkill, Path: m.path, Reason: err.Error()})
			continue
		}
		if err := ids.ValidateSkillID(id); err != nil {
			skips = append(skips, Skip{Kind: KindSkill, Path: m.path, Reason: fmt.Sprintf("invalid id %s: %v", ids.Quote(id), err)})
			continue
		}
		if prev, dup := first[id]; dup {
			if prev == m.path {
				continue // the same file through another pattern
			}
			skips = append(skips, Skip{Kind: KindSkill, Path: m.path, Reason: fmt.Sprintf("duplicate id %s also produced by %s", ids.Quote(id), prev)})
			continue
		}
		first[id] = m.path
		skills = append(skills, Skill{ID: id, Path: m.path, Size: fi.Size(), ModTime: fi.ModTime()})
	}
	slices.SortFunc(skills, func(a, b Skill) int { return cmp.Compare(a.ID, b.ID) })
	return skills, skips
}
