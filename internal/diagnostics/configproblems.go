package diagnostics

import "github.com/iii-hq/skills-go/internal/config"

// ConfigProblems are a loaded config's values that fell back to their
// defaults (config.Config.Problems, D66), as skills doctor and
// skills::diagnostics report them; nil when there are none.
func ConfigProblems(problems []config.Problem) []ConfigProblem {
	var out []ConfigProblem
	for _, p := range problems {
		out = append(out, ConfigProblem{Key: p.Key, Line: p.Line, Reason: p.String()})
	}
	return out
}
