// Package suggest finds the names nearest to one that was not found, for
// the "did you mean …?" of error and warning messages: a misspelt function
// id in `skills call`, a misspelt key in a config file.
package suggest

import (
	"cmp"
	"slices"
	"strings"
)

// Nearest returns up to n candidates within a small edit distance of
// target (a quarter of its length, at least 2), closest first, ties in
// name order. target itself is never returned.
func Nearest(target string, candidates []string, n int) []string {
	limit := max(2, len([]rune(target))/4)
	type scored struct {
		name string
		dist int
	}
	var near []scored
	for _, c := range candidates {
		if c == target {
			continue
		}
		if d := editDistance(target, c); d <= limit {
			near = append(near, scored{c, d})
		}
	}
	slices.SortFunc(near, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.name, b.name))
	})
	out := make([]string, 0, min(len(near), n))
	for _, s := range near[:min(len(near), n)] {
		out = append(out, s.name)
	}
	return out
}

// Or joins names as a sentence offers them: "a", "a or b", "a, b or c".
func Or(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
