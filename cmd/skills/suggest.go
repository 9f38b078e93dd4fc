package main

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/iii"
)

// maxSuggestions is how many nearby function ids a function_not_found
// answer suggests at most.
const maxSuggestions = 3

// suggestFunctions asks the engine for its functions and returns "; did
// you mean a, b or c?" for the ids nearest to the one that was not found,
// or "" when none is near or the engine cannot say (docs/decisions.md D28).
func suggestFunctions(ctx context.Context, client *iii.Client, missing string) string {
	raw, err := client.Call(ctx, "engine::functions::list", map[string]any{})
	if err != nil {
		return ""
	}
	var list struct {
		Functions []struct {
			FunctionID string `json:"function_id"`
		} `json:"functions"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	ids := make([]string, len(list.Functions))
	for i, f := range list.Functions {
		ids[i] = f.FunctionID
	}
	near := nearest(missing, ids)
	if len(near) == 0 {
		return ""
	}
	if len(near) > 1 {
		return "; did you mean " + strings.Join(near[:len(near)-1], ", ") + " or " + near[len(near)-1] + "?"
	}
	return "; did you mean " + near[0] + "?"
}

// nearest returns up to maxSuggestions candidates within a small edit
// distance of target (a quarter of its length, at least 2), closest first,
// ties in id order.
func nearest(target string, candidates []string) []string {
	limit := max(2, len([]rune(target))/4)
	type scored struct {
		id   string
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
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.id, b.id))
	})
	out := make([]string, 0, min(len(near), maxSuggestions))
	for _, s := range near[:min(len(near), maxSuggestions)] {
		out = append(out, s.id)
	}
	return out
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
