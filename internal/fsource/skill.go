package fsource

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/iii-hq/skills-go/internal/ids"
)

// Skills expands the skill patterns: the valid skills sorted by id (first
// match wins on duplicate ids; the same file giving the same id again is
// dropped silently) and the skipped files with their reasons, in the
// order they were found.
//
// Files are only stat'ed, never read: a skill needs no frontmatter, and
// its body is checked when it is read (ReadBody). Directories are ignored;
// a match that cannot be stat'ed (a broken symbolic link, a permission
// error) is skipped with reason "stat: …", other non-regular files (FIFOs,
// sockets, devices) and files whose real path leaves their root with their
// own reasons (see the package documentation).
//
// Skills is SkillsContext without a deadline.
func (s *Source) Skills() ([]Skill, []Skip) {
	return s.SkillsContext(context.Background())
}

// SkillsContext is Skills, stopped when ctx ends: the skills admitted so
// far come back with a Skip saying the walk stopped.
func (s *Source) SkillsContext(ctx context.Context) ([]Skill, []Skip) {
	sc := s.newScan(ctx, KindSkill)
	matches, complete := s.expand(sc, s.skillPatterns)
	var skills []Skill
	first := make(map[string]string) // id -> path of the skill that won it
	for _, m := range matches {
		if err := ctx.Err(); err != nil {
			if complete {
				sc.stopped(m.path, err)
			}
			break
		}
		fi, err := sc.admit(m)
		if err != nil {
			if reason := admitReason("stat: ", err); reason != "" {
				sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: reason})
			}
			continue
		}
		id, err := deriveID(m.prefix, m.path)
		if err != nil {
			sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: err.Error()})
			continue
		}
		if err := ids.ValidateSkillID(id); err != nil {
			sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: fmt.Sprintf("invalid id %s: %v", ids.Quote(id), err)})
			continue
		}
		if prev, dup := first[id]; dup {
			if prev == m.path {
				continue // the same file through another pattern
			}
			sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: fmt.Sprintf("duplicate id %s also produced by %s", ids.Quote(id), prev)})
			continue
		}
		first[id] = m.path
		skills = append(skills, Skill{ID: id, Path: m.path, Size: fi.Size(), ModTime: fi.ModTime(), Stamp: StampOf(fi)})
	}
	for _, root := range s.rootDirs {
		if ctx.Err() != nil {
			break
		}
		for _, sk := range s.rootSkills(sc, root) {
			if prev, taken := first[sk.ID]; taken {
				sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: sk.Path, Reason: fmt.Sprintf(
					"shadowed: %s serves the id %s first (globs before roots, earlier roots before later ones)", prev, ids.Quote(sk.ID))})
				continue
			}
			first[sk.ID] = sk.Path
			skills = append(skills, sk)
		}
	}
	slices.SortFunc(skills, func(a, b Skill) int { return cmp.Compare(a.ID, b.ID) })
	return skills, sc.skips
}
