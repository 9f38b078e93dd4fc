package registry

import (
	"encoding/json"
	"fmt"

	"github.com/iii-hq/skills-go/internal/skillmd"
)

// This file exposes the registry's pure helpers, unchanged, so that the
// BDD suite (features/, tag @pure) can pin them without an engine. Each is
// a thin wrapper over the function the handlers use.

// Title returns the first "# " heading of a markdown body, as the index and
// resources/list name a skill (docs/reference.md#title-and-description); ok is false
// when the body has none.
func Title(body string) (string, bool) { return skillmd.Title(body) }

// Description returns the index description of a markdown body: its first
// paragraph that is not a heading, cut to 140 characters plus "..." when
// longer (docs/decisions.md D1); ok is false when there is none.
func Description(body string) (string, bool) { return skillmd.Description(body) }

// TruncateRunes keeps the first n characters of s and appends "..." when s
// is longer.
func TruncateRunes(s string, n int) string { return skillmd.TruncateRunes(s, n) }

// SectionOutput normalises what a section function returned: a string or
// {content: string} is text/markdown, anything else pretty-printed
// application/json.
func SectionOutput(result json.RawMessage) (mime, text string) { return sectionOutput(result) }

// PromptMessages normalises what a prompt handler returned into the MCP
// messages array, or fails with the reference "unsupported shape" text.
func PromptMessages(result json.RawMessage) (json.RawMessage, error) { return promptMessages(result) }

// ValidatePromptArguments checks a prompts::register arguments array, given
// as JSON, with the handler's rules and texts (docs/reference.md#prompt-arguments).
func ValidatePromptArguments(arguments json.RawMessage) error {
	var args []promptArgument
	if err := json.Unmarshal(arguments, &args); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	_, err := promptArguments(args)
	return err
}
