package config

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/yamlnode"
)

// Parse reads config YAML over Default. Every key is optional and
// defaults on its own (`scopes: {skills: x}` keeps the prompts scope);
// unknown keys are ignored but listed in Config.UnknownKeys; a key set to
// null keeps its default. Types
// are checked strictly: scopes and base_dir are strings, state_timeout_ms
// and max_files whole numbers, skills, prompts, allow_paths and roots lists of
// strings; anything else is
// an error naming the key, its line and what is allowed. An empty
// document is the defaults. Parse does not Validate value ranges.
func Parse(data []byte) (cfg Config, err error) {
	return strict(parse(data, &parser{lines: true}))
}

// strict is a parse's result as Parse and ParseValue answer it: any
// problem is an error and the defaults, as 0.2 did.
func strict(cfg Config, problems []Problem, err error) (Config, error) {
	if err != nil {
		return cfg, err
	}
	if len(problems) > 0 {
		return Default(), errors.New(joinProblems(problems))
	}
	return cfg, nil
}

// parse reads data with p, whose lines say whether problems name their
// line (a file's do; a configuration entry's value has no lines to name).
// A problem with a key's value is returned with the key, which keeps its
// default (Config.fallBack); err is for a document that cannot be read
// as keys at all (invalid YAML, not a mapping), and comes with Default.
// p also records the line of every key it saw, for Load to place
// Validate's problems.
func parse(data []byte, p *parser) (cfg Config, problems []Problem, err error) {
	defer func() {
		// yaml.v3 has panicked on hostile input in the past; a bad config
		// must never stop the worker from booting.
		if r := recover(); r != nil {
			cfg, problems, err = Default(), nil, fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	cfg = Default()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		return Default(), nil, fmt.Errorf("invalid YAML: %s", strings.ReplaceAll(msg, "\n", " "))
	}
	if len(doc.Content) == 0 {
		return cfg, nil, nil
	}
	root := yamlnode.Resolve(doc.Content[0])
	if yamlnode.IsNull(root) {
		return cfg, nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return Default(), nil, fmt.Errorf("%sthe config must be a mapping of keys (scopes, state_timeout_ms, skills, prompts, base_dir, allow_paths, roots, tools, page_size, revisions_kept, index_max_tokens, max_files, max_response_bytes, max_bytes_in_flight, max_frame_bytes, cache_bytes, fs_poll_ms, reconcile_ms, search, mcp, lint, unavailable), got %s", p.at(root), yamlnode.Describe(root))
	}
	p.mapping(root, "", topKeys, func(key string, v *yaml.Node) {
		switch key {
		case "scopes":
			p.scopes(v, &cfg.Scopes)
		case "state_timeout_ms":
			p.timeout(v, &cfg.StateTimeoutMS)
		case "skills":
			p.patterns(v, key, &cfg.Skills)
		case "prompts":
			p.patterns(v, key, &cfg.Prompts)
		case "base_dir":
			p.str(v, key, "a directory path", &cfg.BaseDir)
		case "allow_paths":
			p.dirs(v, key, &cfg.AllowPaths)
		case "roots":
			p.dirs(v, key, &cfg.Roots)
			cfg.RootsSet = !yamlnode.IsNull(yamlnode.Resolve(v))
		case "tools":
			p.tools(v, &cfg.Tools)
		case "page_size":
			p.wholeNumber(v, pageSizeRule, &cfg.PageSize)
		case "revisions_kept":
			p.wholeNumber(v, revisionsKeptRule, &cfg.RevisionsKept)
		case "index_max_tokens":
			p.wholeNumber(v, indexMaxTokensRule, &cfg.IndexMaxTokens)
		case "max_files":
			p.wholeNumber(v, maxFilesRule, &cfg.MaxFiles)
		case "max_response_bytes":
			p.wholeNumber(v, maxResponseBytesRule, &cfg.MaxResponseBytes)
		case "max_bytes_in_flight":
			p.wholeNumber(v, maxBytesInFlightRule, &cfg.MaxBytesInFlight)
		case "max_frame_bytes":
			p.wholeNumber(v, maxFrameBytesRule, &cfg.MaxFrameBytes)
		case "cache_bytes":
			p.wholeNumber(v, cacheBytesRule, &cfg.CacheBytes)
		case "fs_poll_ms":
			p.wholeNumber(v, fsPollRule, &cfg.FSPollMS)
		case "reconcile_ms":
			p.wholeNumber(v, reconcileRule, &cfg.ReconcileMS)
		case "search":
			p.search(v, &cfg.Search)
		case "mcp":
			p.mcp(v, &cfg.MCP)
		case "lint":
			p.lint(v, &cfg.Lint)
		case "unavailable":
			p.str(v, key, "mark or hide", &cfg.Unavailable)
		}
	})
	for _, pr := range p.problems {
		cfg.fallBack(pr.Key)
	}
	cfg.UnknownKeys = p.unknown
	return cfg, p.problems, nil
}

// parser collects every problem in a document, so that one warning tells
// the operator everything to fix.
type parser struct {
	lines    bool // problems start with "line N: "
	problems []Problem
	unknown  []UnknownKey
	keyLines map[string]int // dotted key → its line, for Validate's problems
}

// fail records a problem with key's value n.
func (p *parser) fail(n *yaml.Node, key, format string, args ...any) {
	pr := Problem{Key: key, Message: fmt.Sprintf(format, args...)}
	if p.lines {
		pr.Line = n.Line
	}
	p.problems = append(p.problems, pr)
}

// at is where a problem is: "line N: ", or "" without lines.
func (p *parser) at(n *yaml.Node) string {
	if !p.lines {
		return ""
	}
	return fmt.Sprintf("line %d: ", n.Line)
}

// mapping calls fn for each string key of m once; a repeated key is a
// problem, and a key not in known is recorded as unknown. prefix names the
// enclosing key in messages ("scopes.").
func (p *parser) mapping(m *yaml.Node, prefix string, known []string, fn func(key string, v *yaml.Node)) {
	seen := make(map[string]int)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		p.unknownKey(k, prefix, known)
		if k.Kind != yaml.ScalarNode {
			continue // not a key this worker knows
		}
		if line, dup := seen[k.Value]; dup {
			p.fail(k, prefix+k.Value, "key `%s%s` is repeated (first at line %d)", prefix, k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		if p.keyLines == nil {
			p.keyLines = map[string]int{}
		}
		p.keyLines[prefix+k.Value] = k.Line
		fn(k.Value, v)
	}
}

// section parses v, the mapping of the top-level key name whose keys are
// known, calling fn for each key it holds: null is as if absent, and
// anything but a mapping is one problem saying it must be want.
func (p *parser) section(v *yaml.Node, name, want string, known []string, fn func(key string, v *yaml.Node)) {
	v = yamlnode.Resolve(v)
	if yamlnode.IsNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.fail(v, name, "`%s` must be %s, got %s", name, want, yamlnode.Describe(v))
		return
	}
	p.mapping(v, name+".", known, fn)
}

func (p *parser) scopes(v *yaml.Node, out *Scopes) {
	p.section(v, "scopes", "a mapping with `skills` and `prompts` keys naming iii-state scopes", scopeKeys, func(key string, sv *yaml.Node) {
		switch key {
		case "skills":
			p.str(sv, "scopes.skills", "an iii-state scope name", &out.Skills)
		case "prompts":
			p.str(sv, "scopes.prompts", "an iii-state scope name", &out.Prompts)
		}
	})
}

func (p *parser) tools(v *yaml.Node, out *Tools) {
	p.section(v, "tools", "a mapping with `enabled`, `workdir`, `env_allow` and `max_concurrent` keys", toolKeys, func(key string, tv *yaml.Node) {
		switch key {
		case "enabled":
			p.boolean(tv, "tools.enabled", &out.Enabled)
		case "workdir":
			p.str(tv, "tools.workdir", "a directory path", &out.Workdir)
		case "env_allow":
			p.strings(tv, "tools.env_allow", "environment variable names", "GIT_*", "variable name", &out.EnvAllow)
		case "max_concurrent":
			p.wholeNumber(tv, toolsConcurrencyRule, &out.MaxConcurrent)
		}
	})
}

func (p *parser) search(v *yaml.Node, out *Search) {
	p.section(v, "search", "a mapping with `embedder` and `embed_timeout_ms` keys", searchKey, func(key string, sv *yaml.Node) {
		switch key {
		case "embedder":
			p.str(sv, "search.embedder", "the id of an iii function that embeds texts", &out.Embedder)
		case "embed_timeout_ms":
			p.wholeNumber(sv, embedTimeoutRule, &out.EmbedTimeoutMS)
		}
	})
}

func (p *parser) mcp(v *yaml.Node, out *MCP) {
	p.section(v, "mcp", "a mapping with a `sections_allow` key", mcpKeys, func(key string, mv *yaml.Node) {
		if key == "sections_allow" {
			p.strings(mv, "mcp.sections_allow", "function ids", "docs::*", "function id", &out.SectionsAllow)
		}
	})
}

func (p *parser) lint(v *yaml.Node, out *Lint) {
	p.section(v, "lint", "a mapping with a `flagged` key", lintKeys, func(key string, lv *yaml.Node) {
		if key == "flagged" {
			p.str(lv, "lint.flagged", "serve, note or withhold", &out.Flagged)
		}
	})
}

// boolean sets *out to a true/false scalar; null keeps the default.
func (p *parser) boolean(v *yaml.Node, key string, out *bool) {
	v = yamlnode.Resolve(v)
	if yamlnode.IsNull(v) {
		return
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || v.Decode(out) != nil {
		p.fail(v, key, "`%s` must be true or false, got %s", key, yamlnode.Describe(v))
	}
}

func (p *parser) timeout(v *yaml.Node, out *int64) {
	v = yamlnode.Resolve(v)
	if yamlnode.IsNull(v) {
		return
	}
	var ms int64
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&ms) != nil {
		p.fail(v, stateTimeoutRule.key, "%s, got %s", stateTimeoutRule.text, yamlnode.Describe(v))
		return
	}
	*out = ms
}

// patterns reads a list of glob patterns (skills, prompts).
func (p *parser) patterns(v *yaml.Node, key string, out *[]string) {
	p.strings(v, key, "glob patterns", "docs/**/*.md", "glob pattern", out)
}

// dirs reads a list of directory paths (allow_paths, roots).
func (p *parser) dirs(v *yaml.Node, key string, out *[]string) {
	p.strings(v, key, "directories", "/srv/shared-skills", "directory path", out)
}

// strings reads a list of strings; null keeps the default. plural, example
// and singular word the messages: "`skills` must be a list of glob
// patterns (e.g. `skills: ["docs/**/*.md"]`)".
func (p *parser) strings(v *yaml.Node, key, plural, example, singular string, out *[]string) {
	v = yamlnode.Resolve(v)
	if yamlnode.IsNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.fail(v, key, "`%s` must be a list of %s (e.g. `%s: [\"%s\"]`), got %s", key, plural, key, example, yamlnode.Describe(v))
		return
	}
	list := make([]string, 0, len(v.Content))
	for _, item := range v.Content {
		item = yamlnode.Resolve(item)
		if item.Kind != yaml.ScalarNode || item.ShortTag() != "!!str" {
			p.fail(item, key, "`%s` entries must be %s strings, got %s (quote the value)", key, singular, yamlnode.Describe(item))
			continue
		}
		list = append(list, item.Value)
	}
	*out = list
}

// wholeNumber sets *out to an integer scalar within rule's range as far
// as parsing can tell (Validate checks the range); null keeps the default.
func (p *parser) wholeNumber(v *yaml.Node, rule intRule, out *int) {
	v = yamlnode.Resolve(v)
	if yamlnode.IsNull(v) {
		return
	}
	var n int64
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&n) != nil || n < math.MinInt32 || n > math.MaxInt32 {
		p.fail(v, rule.key, "%s, got %s", rule.text, yamlnode.Describe(v))
		return
	}
	*out = int(n)
}

// str sets *out to a string scalar; null keeps the default. what says what
// the string names, for the message.
func (p *parser) str(v *yaml.Node, key, what string, out *string) {
	v = yamlnode.Resolve(v)
	if yamlnode.IsNull(v) {
		return
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		p.fail(v, key, "`%s` must be a string (%s), got %s (quote the value)", key, what, yamlnode.Describe(v))
		return
	}
	*out = v.Value
}
