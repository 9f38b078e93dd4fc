package main

import (
	"context"
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/suggest"
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
	near := suggest.Nearest(missing, ids, maxSuggestions)
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + suggest.Or(near) + "?"
}
