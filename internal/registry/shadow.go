package registry

import "github.com/iii-hq/skills-go/internal/fsource"

// partitionShadowed splits fs entries into those kept and those shadowed
// by a state row with the same key: state always wins on a collision.
func partitionShadowed[F, S any](fs []F, fsKey func(F) string, rows []S, rowKey func(S) string) (kept, shadowed []F) {
	if len(fs) == 0 || len(rows) == 0 {
		return fs, nil
	}
	inState := make(map[string]struct{}, len(rows))
	for _, row := range rows {
		inState[rowKey(row)] = struct{}{}
	}
	kept = make([]F, 0, len(fs))
	for _, e := range fs {
		if _, ok := inState[fsKey(e)]; ok {
			shadowed = append(shadowed, e)
		} else {
			kept = append(kept, e)
		}
	}
	return kept, shadowed
}

func skillID(s fsource.Skill) string     { return s.ID }
func summaryID(s skillSummary) string    { return s.id }
func promptName(p fsource.Prompt) string { return p.Name }
func promptRowName(p promptRow) string   { return p.Name }

// unshadowedSkills drops the fs skills whose id is also in state.
func unshadowedSkills(fs []fsource.Skill, rows []skillSummary) []fsource.Skill {
	kept, _ := partitionShadowed(fs, skillID, rows, summaryID)
	return kept
}

// unshadowedPrompts drops the fs prompts whose name is also in state.
func unshadowedPrompts(fs []fsource.Prompt, rows []promptRow) []fsource.Prompt {
	kept, _ := partitionShadowed(fs, promptName, rows, promptRowName)
	return kept
}
