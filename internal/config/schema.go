package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/requires"
)

// The config as a JSON value: what the worker registers with the engine's
// configuration worker (docs/data-path.md#live-configuration). Schema
// describes it, Value renders a Config as one, ParseValue reads one back
// through Parse and Validate, and Changed names the keys two configs
// differ in. Every key is a setting below, with the ranges of intRules,
// so the schema, the value and Validate cannot disagree on a key or a
// range. The schema says the types, the ranges and which strings must
// not be blank; Validate has the last word (search.embedder's namespaces
// are checked only there).

// SchemaDraft is the JSON Schema dialect of Schema.
const SchemaDraft = "https://json-schema.org/draft/2020-12/schema"

// nonBlank is the pattern of a string that is not only spaces.
const nonBlank = `\S`

// setting is one key of the config: its dotted path, the JSON Schema of
// its value and its value in a Config (nil: the key is absent, as roots
// is from a config that has no roots key).
type setting struct {
	key    string
	schema map[string]any
	value  func(c *Config) any
}

// settings are every key a config file may hold, in the order of the
// yaml tags (TestSettingsAreEveryKey checks it).
var settings = []setting{
	{"scopes.skills", stringSchema("The iii-state scope of the skills registry.", true), func(c *Config) any { return c.Scopes.Skills }},
	{"scopes.prompts", stringSchema("The iii-state scope of the prompts registry.", true), func(c *Config) any { return c.Scopes.Prompts }},
	{"state_timeout_ms", intSchema(stateTimeoutRule), func(c *Config) any { return c.StateTimeoutMS }},
	{"skills", listSchema("Glob patterns of skill files.", false), func(c *Config) any { return c.Skills }},
	{"prompts", listSchema("Glob patterns of prompt files.", false), func(c *Config) any { return c.Prompts }},
	{"base_dir", stringSchema("The directory relative patterns resolve against; empty: the config file's.", false), func(c *Config) any { return c.BaseDir }},
	{"allow_paths", listSchema("Directories outside the globs' roots that symbolic links may point into.", true), func(c *Config) any { return c.AllowPaths }},
	{"max_files", intSchema(maxFilesRule), func(c *Config) any { return c.MaxFiles }},
	{"max_response_bytes", intSchema(maxResponseBytesRule), func(c *Config) any { return c.MaxResponseBytes }},
	{"max_bytes_in_flight", intSchema(maxBytesInFlightRule), func(c *Config) any { return c.MaxBytesInFlight }},
	{"max_frame_bytes", intSchema(maxFrameBytesRule), func(c *Config) any { return c.MaxFrameBytes }},
	{"cache_bytes", intSchema(cacheBytesRule), func(c *Config) any { return c.CacheBytes }},
	{"roots", listSchema("Folders of Agent Skills, in precedence order.", true), func(c *Config) any {
		if !c.RootsSet {
			return nil
		}
		return c.Roots
	}},
	{"index_max_tokens", intSchema(indexMaxTokensRule), func(c *Config) any { return c.IndexMaxTokens }},
	{"page_size", intSchema(pageSizeRule), func(c *Config) any { return c.PageSize }},
	{"revisions_kept", intSchema(revisionsKeptRule), func(c *Config) any { return c.RevisionsKept }},
	{"tools.enabled", map[string]any{"type": "boolean", "description": "Serve approved SKILL.md tools as functions."}, func(c *Config) any { return c.Tools.Enabled }},
	{"tools.workdir", stringSchema("The working directory of every tool command; empty: the skill's folder.", false), func(c *Config) any { return c.Tools.Workdir }},
	{"tools.env_allow", listSchema("Environment variables passed to tool commands; a trailing * matches any suffix. A credential passes only when named exactly, without *.", true), func(c *Config) any { return c.Tools.EnvAllow }},
	{"tools.max_concurrent", intSchema(toolsConcurrencyRule), func(c *Config) any { return c.Tools.MaxConcurrent }},
	{"fs_poll_ms", intSchema(fsPollRule), func(c *Config) any { return c.FSPollMS }},
	{"reconcile_ms", intSchema(reconcileRule), func(c *Config) any { return c.ReconcileMS }},
	{"search.embedder", map[string]any{"type": "string", "maxLength": 256, "pattern": `^(\S+::\S+)?$`,
		"description": "The id of an iii function that embeds texts (namespace::name); empty: lexical ranking only."}, func(c *Config) any { return c.Search.Embedder }},
	{"search.embed_timeout_ms", intSchema(embedTimeoutRule), func(c *Config) any { return c.Search.EmbedTimeoutMS }},
	{"mcp.sections_allow", map[string]any{"type": "array", "items": map[string]any{"type": "string", "pattern": sectionPatternSchema},
		"description": "Functions whose iii://fn sections MCP clients may read although not exposed to MCP: function ids, or prefixes ending in *."}, func(c *Config) any { return c.MCP.SectionsAllow }},
	{"lint.flagged", map[string]any{"type": "string", "enum": lintModes(),
		"description": "What the worker does with content the checks flag: serve it, note the findings in the listings (skills::list and prompts::list, and the MCP lists in _meta), or withhold it."}, func(c *Config) any { return c.Lint.Flagged }},
	{"unavailable", map[string]any{"type": "string", "enum": []string{string(requires.Mark), string(requires.Hide)},
		"description": "What the worker does with a skill whose requirements (iii://fn links, frontmatter requires) the live engine does not meet: mark it in the index, listings and search results, or hide it."}, func(c *Config) any { return c.Unavailable }},
}

// groups describe the keys that hold a mapping.
var groups = map[string]string{
	"scopes": "The iii-state scopes of the two registries.",
	"tools":  "The typed tools of SKILL.md files.",
	"search": "skill::search's optional embedder.",
	"mcp":    "skills mcp, the MCP server.",
	"lint":   "The content checks of skills and prompts.",
}

func lintModes() []any {
	out := make([]any, len(lint.Modes))
	for i, m := range lint.Modes {
		out[i] = string(m)
	}
	return out
}

func intSchema(r intRule) map[string]any {
	return map[string]any{"type": "integer", "minimum": r.min, "maximum": r.max, "description": r.text}
}

func stringSchema(description string, notBlank bool) map[string]any {
	s := map[string]any{"type": "string", "description": description}
	if notBlank {
		s["pattern"] = nonBlank
	}
	return s
}

func listSchema(description string, notBlank bool) map[string]any {
	item := map[string]any{"type": "string"}
	if notBlank {
		item["pattern"] = nonBlank
	}
	return map[string]any{"type": "array", "items": item, "description": description}
}

// Keys are the config's keys, dotted ("tools.enabled"), in file order.
func Keys() []string {
	keys := make([]string, len(settings))
	for i, s := range settings {
		keys[i] = s.key
	}
	return keys
}

// Schema is the JSON Schema (draft 2020-12) of the config as a JSON
// value. Unknown keys are allowed, as a file's are (they are warned
// about), and every key is optional: a missing one has its default.
func Schema() json.RawMessage {
	root := map[string]any{"$schema": SchemaDraft, "type": "object",
		"title": "skills worker configuration", "properties": map[string]any{}}
	for _, s := range settings {
		parent, name := root, s.key
		if group, leaf, nested := strings.Cut(s.key, "."); nested {
			props := root["properties"].(map[string]any)
			if props[group] == nil {
				props[group] = map[string]any{"type": "object", "description": groups[group], "properties": map[string]any{}}
			}
			parent, name = props[group].(map[string]any), leaf
		}
		parent["properties"].(map[string]any)[name] = s.schema
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic(fmt.Sprintf("config: schema: %v", err)) // maps of plain values always encode
	}
	return b
}

// Value is cfg as a JSON value: every key with its value, nested as in
// the file; roots only when cfg has a roots key. ParseValue of its
// encoding is cfg again, less Dir and UnknownKeys.
func Value(cfg Config) map[string]any {
	out := map[string]any{}
	for _, s := range settings {
		v := s.value(&cfg)
		if v == nil {
			continue
		}
		if group, leaf, nested := strings.Cut(s.key, "."); nested {
			m, _ := out[group].(map[string]any)
			if m == nil {
				m = map[string]any{}
				out[group] = m
			}
			m[leaf] = v
			continue
		}
		out[s.key] = v
	}
	return out
}

// ParseValue reads a config from a JSON value, as Parse reads a file (JSON
// is YAML) and then Validate: a key that is missing or null has its
// default, an unknown key is listed in UnknownKeys, and a problem names
// the key, the value and what is allowed, without a line. Dir is not set:
// the caller knows which directory relative paths mean.
func ParseValue(value json.RawMessage) (Config, error) {
	cfg, err := strict(parse(value, &parser{}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return Default(), err
	}
	return cfg, nil
}

// Changed lists the keys whose values differ between a and b, dotted and
// in file order; roots differ too when only one of them has a roots key.
func Changed(a, b Config) []string {
	var keys []string
	for _, s := range settings {
		if !reflect.DeepEqual(normal(s.value(&a)), normal(s.value(&b))) {
			keys = append(keys, s.key)
		}
	}
	return keys
}

// normal makes a nil list and an empty one equal: neither holds a value.
func normal(v any) any {
	if l, ok := v.([]string); ok && len(l) == 0 {
		return []string{}
	}
	return v
}
