package tools

import (
	"strings"
)

// passedEnv are the variables a command gets from the worker's
// environment without being asked for (D38); a trailing * matches any
// suffix.
var passedEnv = []string{"PATH", "HOME", "USER", "LANG", "LC_*", "TERM", "TZ"}

// blockedEnv are never passed, even when tools.env_allow names them:
// they are where credentials live (D38, seed §5.2).
var blockedEnv = []string{"*_TOKEN", "*_KEY", "*_SECRET", "AWS_*", "OPENAI_*", "ANTHROPIC_*"}

// FilterEnv returns the entries of environ ("NAME=value") that a command
// may see: the passed names and those matching allow, minus the blocked
// ones.
func FilterEnv(environ, allow []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if Blocked(name) || !matchAny(name, passedEnv) && !matchAny(name, allow) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Blocked reports whether a variable is never passed to a command.
func Blocked(name string) bool { return matchAny(strings.ToUpper(name), blockedEnv) }

func matchAny(name string, patterns []string) bool {
	for _, p := range patterns {
		switch {
		case strings.HasPrefix(p, "*"):
			if strings.HasSuffix(name, p[1:]) {
				return true
			}
		case strings.HasSuffix(p, "*"):
			if strings.HasPrefix(name, p[:len(p)-1]) {
				return true
			}
		case name == p:
			return true
		}
	}
	return false
}
