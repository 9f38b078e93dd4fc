package fsource

import (
	"testing"
)

// reference-behaviour.md §9/§10.3 (fs_source.rs expand_skill_globs): each
// pattern's matches are validated independently, and a file is skipped
// only as a duplicate of the same id from a different path. A file whose
// id under the first pattern is invalid (skipped) is still loaded under a
// later pattern that derives a valid id: here the reference serves `a`
// (from "Team/*.md"). Dropping every path an earlier pattern had matched,
// before validating, used to lose it.
func TestReviewLaterPatternStillLoadsFileSkippedByEarlierPattern(t *testing.T) {
	dir := writeTree(t, map[string]string{"Team/a.md": "# A\n"})
	skills, skips := New(dir, []string{"**/*.md", "Team/*.md"}, nil).Skills()
	if len(skills) != 1 || skills[0].ID != "a" {
		t.Errorf("skills = %v (skips %v), want one skill a", skillLines(dir, skills), skipLines(dir, skips))
	}
}
