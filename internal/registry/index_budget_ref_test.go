package registry

import (
	"fmt"
)

// fitIndexReference is the index budget's first algorithm (D44), kept as
// the reference the linear one is checked against: fold the deepest level,
// render, measure, and again one level up; then drop the last top-level
// entry, render, measure, and again. It renders the whole index once per
// level and once per entry cut, so it is quadratic; it is only run on
// small inputs.
func fitIndexReference(state, fs []bullet, maxTokens int) ([]bullet, []bullet, int) {
	tokens := func(s, f []bullet) int { return (len(renderBullets(s, f, 0)) + 3) / 4 }
	maxDepth := 0
	for _, bl := range append(append([]bullet{}, state...), fs...) {
		maxDepth = max(maxDepth, bl.depth)
	}
	for d := maxDepth; d >= 1 && tokens(state, fs) > maxTokens; d-- {
		state, fs = foldDepth(state, d), foldDepth(fs, d)
	}
	if tokens(state, fs) <= maxTokens {
		return state, fs, 0
	}
	left := 0
	for tokens(state, fs)+(len(fmt.Sprintf(indexBudgetNote, left+1, maxTokens))+3)/4 > maxTokens && len(state)+len(fs) > 0 {
		if len(fs) > 0 {
			left += fs[len(fs)-1].foldedCount()
			fs = fs[:len(fs)-1]
		} else {
			left += state[len(state)-1].foldedCount()
			state = state[:len(state)-1]
		}
	}
	return state, fs, left
}
