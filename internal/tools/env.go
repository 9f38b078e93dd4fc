package tools

import (
	"regexp"
	"slices"
	"strings"
)

// passedEnv are the variables a command gets from the worker's
// environment without being asked for (D38); a trailing * matches any
// suffix.
var passedEnv = []string{"PATH", "HOME", "USER", "LANG", "LC_*", "TERM", "TZ"}

// credentialNames are the names (compared upper-cased) of variables that
// hold a credential, or the means to use one: a leading * matches any
// prefix, a trailing * any suffix (D38, seed §5.2; docs/tools.md lists
// them). A suffix without an underscore also catches names such as
// PGPASSWORD.
var credentialNames = []string{
	"*TOKEN", "*SECRET", "*PASSWORD", "*PASSWD", "*PASSPHRASE", "*_PWD",
	"*_KEY", "*APIKEY", "*CREDENTIAL", "*CREDENTIALS", "*COOKIE", "*_AUTH",
	"*_DSN", "*DATABASE_URL", "*CONNECTION_STRING",
	"AWS_*", "OPENAI_*", "ANTHROPIC_*",
	"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KRB5CCNAME",
}

// credentialValues are values that are a credential whatever the
// variable's name: a URL with a password in its user information
// (scheme://user:pass@host), a private key, a JSON Web Token, and the
// tokens whose format announces them. A token must begin the value or
// follow a character that cannot be part of it, so that a path such as
// /opt/task-runner does not look like an "sk-" key.
var credentialValues = []*regexp.Regexp{
	regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:[^\s/?#@]+@`),
	regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`),
	regexp.MustCompile(tokenStart + `eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.`), // JWT: header.payload.
	regexp.MustCompile(tokenStart + `(?:` + strings.Join([]string{
		`gh[pousr]_[A-Za-z0-9]{30,}`,           // GitHub
		`github_pat_[A-Za-z0-9_]{30,}`,         // GitHub, fine-grained
		`glpat-[A-Za-z0-9_-]{20,}`,             // GitLab
		`xox[abposr]-[A-Za-z0-9-]{10,}`,        // Slack
		`sk-[A-Za-z0-9_-]{20,}`,                // OpenAI, Anthropic (sk-ant-…)
		`[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`, // Stripe
		`(?:AKIA|ASIA)[A-Z0-9]{16}`,            // AWS access key id
		`AIza[A-Za-z0-9_-]{35}`,                // Google API key
		`npm_[A-Za-z0-9]{36}`,                  // npm
		`hf_[A-Za-z0-9]{30,}`,                  // Hugging Face
		`pypi-[A-Za-z0-9_-]{50,}`,              // PyPI
	}, "|") + `)`),
}

// tokenStart is where a token may begin: at the start of the value or
// after a character that no token of credentialValues holds.
const tokenStart = `(?:^|[^A-Za-z0-9_-])`

// FilterEnv returns the entries of environ ("NAME=value") that a command
// may see: the passed names and those matching allow, minus credentials
// (by name or by value, see Credential). An entry of allow that names a
// variable exactly, without *, passes it even when it is a credential:
// that is the one way to hand a command a credential, one variable at a
// time.
func FilterEnv(environ, allow []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if slices.Contains(allow, name) {
			out = append(out, kv)
			continue
		}
		if !matchAny(name, passedEnv) && !matchAny(name, allow) || Credential(name, value) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Credential reports whether a variable holds a credential, judged by
// its name (credentialNames) or by its value (credentialValues).
func Credential(name, value string) bool {
	if matchAny(strings.ToUpper(name), credentialNames) {
		return true
	}
	for _, re := range credentialValues {
		if re.MatchString(value) {
			return true
		}
	}
	return false
}

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
