package config

import (
	"errors"
	"fmt"
	"strings"
)

// Validate checks values Parse cannot: non-blank scopes and a timeout a
// time.Duration can hold. It reports every problem, each naming the key,
// the value and what is allowed.
func (c Config) Validate() error {
	var problems []string
	for _, s := range []struct{ key, value string }{
		{"scopes.skills", c.Scopes.Skills},
		{"scopes.prompts", c.Scopes.Prompts},
	} {
		if strings.TrimSpace(s.value) == "" {
			problems = append(problems, fmt.Sprintf("`%s` must name an iii-state scope (a non-blank string), got %q", s.key, s.value))
		}
	}
	if c.StateTimeoutMS < 1 || c.StateTimeoutMS > MaxStateTimeoutMS {
		problems = append(problems, fmt.Sprintf("`state_timeout_ms` must be a whole number of milliseconds from 1 to %d, got %d", MaxStateTimeoutMS, c.StateTimeoutMS))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}
