package requires

import (
	"fmt"
	"slices"
)

// Mode is what the worker does with a skill whose requirements the live
// engine does not meet: the config key unavailable (docs/decisions.md
// D85). An available skill is served as before in every mode, byte for
// byte.
type Mode string

// The modes.
const (
	// Mark serves the skill and marks it, with what it lacks, in the
	// index, skills::list, skill::search and the MCP listings' _meta.
	Mark Mode = "mark"
	// Hide leaves it out of every listing and refuses a read of it with
	// unavailable, naming what it lacks.
	Hide Mode = "hide"
)

// DefaultMode is unavailable's default.
const DefaultMode = Mark

// Modes are the values unavailable accepts.
var Modes = []Mode{Mark, Hide}

// CheckMode returns the problem with an unavailable value, or "".
func CheckMode(m string) string {
	if slices.Contains(Modes, Mode(m)) {
		return ""
	}
	return fmt.Sprintf("`unavailable` must be mark or hide (default %s), got %q", DefaultMode, m)
}
