package contract

import (
	"slices"
	"strings"
)

// internalNamespaces are the namespaces the engine, the infrastructure
// workers and this worker's admin API own (docs/decisions.md D2): no
// iii://fn/… section or prompt handler may be one of their functions, so
// that a crafted iii://fn/state/set cannot tunnel into infra; the iii mcp
// worker never exposes them; no tool skill may register into them.
var internalNamespaces = []string{"engine", "state", "stream", "iii", "mcp", "a2a", "skills", "prompts"}

// InternalPrefixes returns the function id prefixes of the internal
// namespaces: each namespace followed by "::", and "iii." (the engine's
// dotted ids). skill:: (singular, the fetch alias) is deliberately not
// among them: triggering it with {} fails its own validation, so it
// cannot recurse.
func InternalPrefixes() []string {
	out := make([]string, 0, len(internalNamespaces)+1)
	for _, ns := range internalNamespaces {
		out = append(out, ns+"::")
	}
	return append(out, "iii.")
}

// IsInternal reports whether functionID is in an internal namespace.
func IsInternal(functionID string) bool {
	for _, ns := range internalNamespaces {
		if rest, ok := strings.CutPrefix(functionID, ns); ok && strings.HasPrefix(rest, "::") {
			return true
		}
	}
	return strings.HasPrefix(functionID, "iii.")
}

// ReservedSkillNames returns the skill names a tool skill may not take:
// its functions (name::tool) would land in an internal namespace, or in
// skill::, where this worker serves fetch and search.
func ReservedSkillNames() []string {
	return append(slices.Clone(internalNamespaces), "skill")
}
