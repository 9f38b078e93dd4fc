package contract

import (
	"fmt"
	"strings"
	"testing"
)

func TestIsInternal(t *testing.T) {
	tests := map[string]bool{
		"state::set":          true,
		"engine::functions":   true,
		"iii.worker.register": true,
		"iii::x":              true,
		"skills::register":    true,
		"prompts::mcp-get":    true,
		"a2a::send":           true,
		"skill::fetch":        false, // the alias validates its own input
		"skill::search":       false,
		"statefulness::get":   false,
		"state:get":           false,
		"iii":                 false,
		"myapp::docs":         false,
		"":                    false,
	}
	for id, want := range tests {
		if got := IsInternal(id); got != want {
			t.Errorf("IsInternal(%q) = %v, want %v", id, got, want)
		}
	}
}

// A caller that keeps the list cannot change the next caller's.
func TestListsAreCopies(t *testing.T) {
	InternalPrefixes()[0] = "x"
	ReservedSkillNames()[0] = "x"
	if InternalPrefixes()[0] != "engine::" || ReservedSkillNames()[0] != "engine" {
		t.Error("a returned list aliases the package's")
	}
}

// A listing over the response budget says how to get it (D26 with D43).
func TestOversizeHint(t *testing.T) {
	for fn, want := range map[string]string{
		FnSkillsResourcesList: "set page_size in the worker's config",
		FnPromptsMCPList:      "set page_size in the worker's config",
		FnSkillsList:          "skill::search",
		FnSkillsUsage:         "pass id",
		FnSkillFetch:          "",
	} {
		if got := OversizeHint(fn); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("OversizeHint(%s) = %q, want %q", fn, got, want)
		}
	}
}

// The prefixes as 0.2 spelled them (docs/decisions.md D2): the recursion
// guard and the mcp worker's hidden namespaces. Docs point here rather
// than repeat the list.
func ExampleInternalPrefixes() {
	fmt.Println(strings.Join(InternalPrefixes(), " "))
	// Output:
	// engine:: state:: stream:: iii:: mcp:: a2a:: skills:: prompts:: iii.
}

// The skill names a tool skill may not take (docs/decisions.md D36): the
// internal namespaces, and skill, where fetch and search live.
func ExampleReservedSkillNames() {
	fmt.Println(strings.Join(ReservedSkillNames(), " "))
	// Output:
	// engine state stream iii mcp a2a skills prompts skill
}
