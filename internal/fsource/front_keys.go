package fsource

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/requires"
)

// knownFrontKeys are the SKILL.md frontmatter keys a root loads without a
// word (docs/decisions.md D31, D69): the Agent Skills specification's
// fields (agentskills.io/specification), the extensions Claude Code
// documents for its skills, and the keys of this worker's tool skills
// (docs/decisions.md D34). Any other key is a warning, never a skip: the
// Agent Skills client guide asks clients to be lenient, and a misspelt key
// ("descripton") is worth telling the author about.
var knownFrontKeys = []string{
	// The specification.
	"name", "description", "license", "compatibility", "metadata", "allowed-tools",
	// Claude Code's documented extensions.
	"when_to_use", "argument-hint", "arguments", "disable-model-invocation", "user-invocable",
	"disallowed-tools", "model", "effort", "context", "agent", "hooks", "paths", "shell",
	// Tool skills (D34).
	"version", "read_only", "always_ask", "network", "timeout",
	// What a skill requires of the live engine (D85).
	requires.KeyRequires,
}

// unknownKeysWarning is the warning for the keys of fields that are not
// knownFrontKeys, "" when there are none.
func unknownKeysWarning(fields map[string]any) string {
	var unknown []string
	for k := range fields {
		if !slices.Contains(knownFrontKeys, k) {
			unknown = append(unknown, ids.Quote(k))
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	slices.Sort(unknown)
	return fmt.Sprintf("unknown frontmatter %s %s: not an Agent Skills field, a Claude Code extension or a tool skill key, so ignored; custom data goes under metadata",
		plural(len(unknown), "key", "keys"), strings.Join(unknown, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
