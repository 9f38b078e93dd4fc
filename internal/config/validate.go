package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/requires"
)

// What the whole-number keys accept, for Parse and Validate.
var (
	maxFilesRule = intRule{key: "max_files", min: 1, max: MaxMaxFiles, text: fmt.Sprintf(
		"`max_files` must be a whole number of directory entries from 1 to %d (default %d)", MaxMaxFiles, DefaultMaxFiles)}
	maxResponseBytesRule = intRule{key: "max_response_bytes", min: MinMaxResponseBytes, max: MaxMaxResponseBytes, text: fmt.Sprintf(
		"`max_response_bytes` must be a whole number of bytes from %d (1 KiB) to %d (63 MiB) (default %d, 16 MiB)", MinMaxResponseBytes, MaxMaxResponseBytes, DefaultMaxResponseBytes)}
	maxBytesInFlightRule = intRule{key: "max_bytes_in_flight", min: 0, max: MaxMaxFrameBytes, text: fmt.Sprintf(
		"`max_bytes_in_flight` must be a whole number of bytes from 0 (no bound) to %d (default %d, 64 MiB)", MaxMaxFrameBytes, DefaultMaxBytesInFlight)}
	cacheBytesRule = intRule{key: "cache_bytes", min: 0, max: MaxMaxFrameBytes, text: fmt.Sprintf(
		"`cache_bytes` must be a whole number of bytes from 0 (keep no bodies) to %d (default %d, 256 MiB)", MaxMaxFrameBytes, DefaultCacheBytes)}
	fsPollRule = intRule{key: "fs_poll_ms", min: 100, max: 3600000, text: fmt.Sprintf(
		"`fs_poll_ms` must be a whole number of milliseconds from 100 to 3600000 (default %d)", DefaultFSPollMS)}
	reconcileRule = intRule{key: "reconcile_ms", min: 0, max: 86400000, text: fmt.Sprintf(
		"`reconcile_ms` must be a whole number of milliseconds from 0 (never) to 86400000 (default %d)", DefaultReconcileMS)}
	indexMaxTokensRule = intRule{key: "index_max_tokens", min: 0, max: 100000000,
		text: "`index_max_tokens` must be a whole number of tokens from 0 (no bound) to 100000000 (default 0)"}
	pageSizeRule = intRule{key: "page_size", min: 0, max: 100000,
		text: "`page_size` must be a whole number of entries from 0 (everything in one answer) to 100000 (default 0)"}
	revisionsKeptRule = intRule{key: "revisions_kept", min: 0, max: 1000, text: fmt.Sprintf(
		"`revisions_kept` must be a whole number of bodies per skill from 0 (keep no history) to 1000 (default %d)", DefaultRevisionsKept)}
	toolsConcurrencyRule = intRule{key: "tools.max_concurrent", min: 1, max: 64, text: fmt.Sprintf(
		"`tools.max_concurrent` must be a whole number of commands from 1 to 64 (default %d)", DefaultToolsMaxConcurrent)}
	embedTimeoutRule = intRule{key: "search.embed_timeout_ms", min: 10, max: 60000, text: fmt.Sprintf(
		"`search.embed_timeout_ms` must be a whole number of milliseconds from 10 to 60000 (default %d)", DefaultEmbedTimeoutMS)}
	stateTimeoutRule = intRule{key: "state_timeout_ms", min: 1, max: MaxStateTimeoutMS, text: fmt.Sprintf(
		"`state_timeout_ms` must be a whole number of milliseconds from 1 to %d", MaxStateTimeoutMS)}
	maxFrameBytesRule = intRule{key: "max_frame_bytes", min: MinMaxFrameBytes, max: MaxMaxFrameBytes, text: fmt.Sprintf(
		"`max_frame_bytes` must be a whole number of bytes from %d (1 MiB) to %d (default %d, 1 GiB)", MinMaxFrameBytes, MaxMaxFrameBytes, DefaultMaxFrameBytes)}
)

// checkEmbedder returns the problem with search.embedder, or "": it must
// be "" (none) or a function id namespace::name, with no space or
// control character, outside the engine's namespaces and this worker's
// own (an embedder in skill:: or skills:: would call the worker back).
func checkEmbedder(id string) string {
	if id == "" {
		return ""
	}
	ns, name, ok := strings.Cut(id, "::")
	bad := !ok || ns == "" || name == "" || len(id) > 256 ||
		strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	if bad || contract.IsInternal(id) || ns == "skill" {
		return fmt.Sprintf("`search.embedder` must be the id of an iii function that embeds texts, namespace::name with no spaces (e.g. \"embeddings::embed\"), at most 256 bytes, in none of the namespaces %s, got %q",
			strings.Join(append(contract.ReservedSkillNames(), "iii."), ", "), id)
	}
	return ""
}

// intRules are the whole-number keys with the field each sets, in the
// order Validate reports them: the one table Validate and Schema read.
var intRules = []struct {
	rule  intRule
	value func(*Config) int64
}{
	{stateTimeoutRule, func(c *Config) int64 { return c.StateTimeoutMS }},
	{maxFilesRule, func(c *Config) int64 { return int64(c.MaxFiles) }},
	{maxResponseBytesRule, func(c *Config) int64 { return int64(c.MaxResponseBytes) }},
	{maxBytesInFlightRule, func(c *Config) int64 { return int64(c.MaxBytesInFlight) }},
	{maxFrameBytesRule, func(c *Config) int64 { return int64(c.MaxFrameBytes) }},
	{cacheBytesRule, func(c *Config) int64 { return int64(c.CacheBytes) }},
	{fsPollRule, func(c *Config) int64 { return int64(c.FSPollMS) }},
	{reconcileRule, func(c *Config) int64 { return int64(c.ReconcileMS) }},
	{toolsConcurrencyRule, func(c *Config) int64 { return int64(c.Tools.MaxConcurrent) }},
	{pageSizeRule, func(c *Config) int64 { return int64(c.PageSize) }},
	{revisionsKeptRule, func(c *Config) int64 { return int64(c.RevisionsKept) }},
	{indexMaxTokensRule, func(c *Config) int64 { return int64(c.IndexMaxTokens) }},
	{embedTimeoutRule, func(c *Config) int64 { return int64(c.Search.EmbedTimeoutMS) }},
}

// intRule is the range of a whole-number key and the sentence that says so.
type intRule struct {
	key      string
	min, max int64
	text     string
}

// check returns the problem with n, or "".
func (r intRule) check(n int64) string {
	if int64(n) < r.min || int64(n) > r.max {
		return fmt.Sprintf("%s, got %d", r.text, n)
	}
	return ""
}

// Validate checks values Parse cannot: non-blank scopes, a timeout a
// time.Duration can hold, max_files and max_response_bytes in range and non-blank allow_paths
// and roots entries. It reports every problem, each naming the key,
// the value and what is allowed.
func (c Config) Validate() error {
	if problems := c.validate(); len(problems) > 0 {
		return errors.New(joinProblems(problems))
	}
	return nil
}

// validate is Validate's problems, each with its key (without line).
func (c Config) validate() []Problem {
	var problems []Problem
	add := func(key, msg string) { problems = append(problems, Problem{Key: key, Message: msg}) }
	for _, s := range []struct{ key, value string }{
		{"scopes.skills", c.Scopes.Skills},
		{"scopes.prompts", c.Scopes.Prompts},
	} {
		if strings.TrimSpace(s.value) == "" {
			add(s.key, fmt.Sprintf("`%s` must name an iii-state scope (a non-blank string), got %q", s.key, s.value))
		}
	}
	for _, r := range intRules {
		if p := r.rule.check(r.value(&c)); p != "" {
			add(r.rule.key, p)
		}
	}
	if p := checkEmbedder(c.Search.Embedder); p != "" {
		add("search.embedder", p)
	}
	for _, list := range []struct {
		key   string
		paths []string
	}{{"allow_paths", c.AllowPaths}, {"roots", c.Roots}, {"tools.env_allow", c.Tools.EnvAllow}} {
		for i, p := range list.paths {
			if strings.TrimSpace(p) == "" {
				add(list.key, fmt.Sprintf("`%s[%d]` must be a directory path (a non-blank string), got %q", list.key, i, p))
			}
		}
	}
	if p := lint.CheckMode(c.Lint.Flagged); p != "" {
		add("lint.flagged", p)
	}
	if p := requires.CheckMode(c.Unavailable); p != "" {
		add("unavailable", p)
	}
	for i, p := range c.MCP.SectionsAllow {
		if problem := checkSectionPattern(p); problem != "" {
			add("mcp.sections_allow", fmt.Sprintf("`mcp.sections_allow[%d]` %s, got %q", i, problem, p))
		}
	}
	return problems
}

// sectionPatternSchema is the JSON Schema pattern of an
// mcp.sections_allow entry: what checkSectionPattern accepts, less the
// length and control characters (Validate has the last word).
const sectionPatternSchema = `^[^\s*]+\*?$|^\*$`

// checkSectionPattern returns the problem with an mcp.sections_allow
// entry, or "": a function id, or a prefix ending in * ("*" alone allows
// every function), with no space or control character, at most 256
// bytes.
func checkSectionPattern(p string) string {
	body := strings.TrimSuffix(p, "*")
	if p == "" || len(p) > 256 || strings.Contains(body, "*") ||
		strings.ContainsFunc(body, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "must be a function id (e.g. \"docs::status\") or a prefix of ids ending in * (e.g. \"docs::*\"), with no spaces, at most 256 bytes"
	}
	return ""
}
