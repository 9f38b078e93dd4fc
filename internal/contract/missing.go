package contract

import (
	"slices"
	"strings"
)

// Missing is what a skill requires that is missing now
// (docs/decisions.md D85): skills::list's and skill::search's unavailable
// field, and the MCP listings' MetaKeyUnavailable.
type Missing struct {
	// Functions are the required functions the engine does not offer.
	Functions []string `json:"functions,omitempty"`
	// Skills are the required skills the registry does not serve, or
	// serves as unavailable themselves.
	Skills []string `json:"skills,omitempty"`
}

// Equal reports whether two judgements are the same (nil: available).
func (u *Missing) Equal(o *Missing) bool {
	if u == nil || o == nil {
		return u == o
	}
	return slices.Equal(u.Functions, o.Functions) && slices.Equal(u.Skills, o.Skills)
}

// String names what is missing, for messages and the index: "function
// acme::status, skill billing/policy".
func (u *Missing) String() string {
	var parts []string
	for _, f := range u.Functions {
		parts = append(parts, "function "+f)
	}
	for _, s := range u.Skills {
		parts = append(parts, "skill "+s)
	}
	return strings.Join(parts, ", ")
}
