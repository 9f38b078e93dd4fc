package registry

import (
	"github.com/iii-hq/skills-go/internal/fsource"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// partitionShadowed splits fs entries into those kept and those shadowed
// by a state row with the same key: state always wins on a collision.
// (Skills are merged by the view, package catalog; prompts here.)
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

func promptName(p fsource.Prompt) string       { return p.Name }
func promptRowName(p catalog.PromptRow) string { return p.Name }

// unshadowedPrompts drops the fs prompts whose name is also in state.
func unshadowedPrompts(fs []fsource.Prompt, rows []catalog.PromptRow) []fsource.Prompt {
	kept, _ := partitionShadowed(fs, promptName, rows, promptRowName)
	return kept
}
