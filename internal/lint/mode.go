package lint

import (
	"fmt"
	"strings"
)

// Mode is what the worker does with flagged content: the config key
// lint.flagged (docs/reference.md#content-checks). Unflagged content is
// served as before in every mode, byte for byte.
type Mode string

// The modes.
const (
	// Serve serves flagged content as if unflagged; the findings go to
	// skills::diagnostics, skills doctor and the log only.
	Serve Mode = "serve"
	// Note serves flagged content and adds its findings, as a `lint`
	// field, to its entries in skills::list and prompts::list. The
	// default.
	Note Mode = "note"
	// Withhold lists no flagged entry, and a read of one is refused with
	// forbidden, naming the rule.
	Withhold Mode = "withhold"
)

// DefaultMode is lint.flagged's default (docs/decisions.md D65).
const DefaultMode = Note

// Modes are the values lint.flagged accepts.
var Modes = []Mode{Serve, Note, Withhold}

// CheckMode returns the problem with a lint.flagged value, or "".
func CheckMode(m string) string {
	for _, ok := range Modes {
		if Mode(m) == ok {
			return ""
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return fmt.Sprintf("`lint.flagged` must be one of %s (default %s), got %q", strings.Join(names, ", "), DefaultMode, m)
}
