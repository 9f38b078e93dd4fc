package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefault(t *testing.T) {
	want := Config{
		Scopes:         Scopes{Skills: "skills", Prompts: "prompts"},
		StateTimeoutMS: 10000,
		Skills:         []string{},
		Prompts:        []string{},
		AllowPaths:     []string{},
		Roots:          []string{},
		Tools:          Tools{EnvAllow: []string{}, MaxConcurrent: 4},
		MaxFiles:       100000,

		MaxResponseBytes: 16 << 20,
		MaxBytesInFlight: 64 << 20,
		MaxFrameBytes:    1 << 30,
		CacheBytes:       256 << 20,
		FSPollMS:         2000,
		ReconcileMS:      5000,
		RevisionsKept:    10,
		Search:           Search{EmbedTimeoutMS: 2000},
		MCP:              MCP{SectionsAllow: []string{}},
		Lint:             Lint{Flagged: "note"},
		Unavailable:      "mark",
	}
	if diff := cmp.Diff(want, Default()); diff != "" {
		t.Errorf("Default() (-want +got):\n%s", diff)
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
}

// with returns Default changed by fn.
func with(fn func(*Config)) Config {
	c := Default()
	fn(&c)
	return c
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want Config
	}{
		{name: "empty file", yaml: "", want: Default()},
		{name: "comments only", yaml: "# nothing here\n", want: Default()},
		{name: "empty mapping", yaml: "{}", want: Default()},
		{name: "null document", yaml: "~\n", want: Default()},
		{
			name: "every key",
			yaml: `
scopes:
  skills: my-skills
  prompts: my-prompts
state_timeout_ms: 7500
skills:
  - my-custom-skills-folder/**/*.md
  - shared/skills/**/*.md
prompts: ["my-custom-prompts-folder/**/*.md"]
base_dir: /srv/docs
allow_paths: [/srv/shared-skills, ../vendor]
roots: [./skills, ~/.claude/skills]
tools: {enabled: true, workdir: /srv/work, env_allow: [GIT_*, EDITOR], max_concurrent: 2}
page_size: 100
revisions_kept: 25
index_max_tokens: 2000
max_files: 5000
max_response_bytes: 1048576
max_bytes_in_flight: 8388608
max_frame_bytes: 134217728
cache_bytes: 0
fs_poll_ms: 500
reconcile_ms: 0
search: {embedder: embeddings::embed, embed_timeout_ms: 500}
mcp: {sections_allow: ["docs::status", "ops::*"]}
lint: {flagged: withhold}
unavailable: hide
`,
			want: Config{
				Scopes:         Scopes{Skills: "my-skills", Prompts: "my-prompts"},
				StateTimeoutMS: 7500,
				Skills:         []string{"my-custom-skills-folder/**/*.md", "shared/skills/**/*.md"},
				Prompts:        []string{"my-custom-prompts-folder/**/*.md"},
				BaseDir:        "/srv/docs",
				AllowPaths:     []string{"/srv/shared-skills", "../vendor"},
				Roots:          []string{"./skills", "~/.claude/skills"},
				RootsSet:       true,
				Tools:          Tools{Enabled: true, Workdir: "/srv/work", EnvAllow: []string{"GIT_*", "EDITOR"}, MaxConcurrent: 2},
				PageSize:       100,
				RevisionsKept:  25,
				IndexMaxTokens: 2000,
				MaxFiles:       5000,

				MaxResponseBytes: 1 << 20,
				MaxBytesInFlight: 8 << 20,
				MaxFrameBytes:    128 << 20,
				CacheBytes:       0,
				FSPollMS:         500,
				ReconcileMS:      0,
				Search:           Search{Embedder: "embeddings::embed", EmbedTimeoutMS: 500},
				MCP:              MCP{SectionsAllow: []string{"docs::status", "ops::*"}},
				Lint:             Lint{Flagged: "withhold"},
				Unavailable:      "hide",
			},
		},
		{
			name: "each field defaults on its own",
			yaml: "scopes: {skills: x}\n",
			want: with(func(c *Config) { c.Scopes.Skills = "x" }),
		},
		{
			name: "only the other scope",
			yaml: "scopes:\n  prompts: p\n",
			want: with(func(c *Config) { c.Scopes.Prompts = "p" }),
		},
		{
			name: "unknown keys are ignored, at any level, and listed",
			yaml: "workers: [a]\nscopes: {skills: s, extra: 1}\n1: one\n[a]: b\nstate_timeout_ms: 5\n",
			want: with(func(c *Config) {
				c.Scopes.Skills = "s"
				c.StateTimeoutMS = 5
				c.UnknownKeys = []UnknownKey{
					{Key: "workers", Line: 1, Known: topKeys},
					{Key: "scopes.extra", Line: 2, Known: []string{"scopes.skills", "scopes.prompts"}},
					{Key: "1", Line: 3, Known: topKeys},
					{Key: "(a list used as a key)", Line: 4, Known: topKeys},
				}
			}),
		},
		{
			name: "null values keep the defaults",
			yaml: "scopes: ~\nstate_timeout_ms: null\nskills:\nprompts: ~\nbase_dir:\nallow_paths: ~\nroots: ~\nmax_files: ~\n",
			want: Default(),
		},
		{
			name: "an empty roots list is a roots key (D32: the roots functions scan no defaults)",
			yaml: "roots: []\n",
			want: with(func(c *Config) { c.RootsSet = true }),
		},
		{
			name: "null scope keeps its default",
			yaml: "scopes: {skills: ~, prompts: p}\n",
			want: with(func(c *Config) { c.Scopes.Prompts = "p" }),
		},
		{
			name: "YAML integer spellings",
			yaml: "state_timeout_ms: 10_500\n",
			want: with(func(c *Config) { c.StateTimeoutMS = 10500 }),
		},
		{
			name: "hex integer",
			yaml: "state_timeout_ms: 0x10\n",
			want: with(func(c *Config) { c.StateTimeoutMS = 16 }),
		},
		{
			name: "empty lists",
			yaml: "skills: []\nprompts: []\n",
			want: Default(),
		},
		{
			name: "aliases are followed",
			yaml: "x: &g docs/*.md\nskills: [*g]\nprompts: [*g]\n",
			want: with(func(c *Config) {
				c.Skills = []string{"docs/*.md"}
				c.Prompts = []string{"docs/*.md"}
				c.UnknownKeys = []UnknownKey{{Key: "x", Line: 1, Known: topKeys}}
			}),
		},
		{
			name: "relative base_dir is kept as written",
			yaml: "base_dir: ../content\n",
			want: with(func(c *Config) { c.BaseDir = "../content" }),
		},
		{
			name: "empty allow_paths",
			yaml: "allow_paths: []\n",
			want: Default(),
		},
		{
			name: "max_files spellings",
			yaml: "max_files: 1_000\n",
			want: with(func(c *Config) { c.MaxFiles = 1000 }),
		},
		{
			name: "out-of-range values are left to Validate",
			yaml: "state_timeout_ms: -5\nscopes: {skills: ''}\nmax_files: 0\nallow_paths: ['']\n",
			want: with(func(c *Config) {
				c.StateTimeoutMS = -5
				c.Scopes.Skills = ""
				c.MaxFiles = 0
				c.AllowPaths = []string{""}
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.yaml))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{
			name: "syntax error",
			yaml: "scopes:\n  skills: a: b\n",
			want: "invalid YAML: line 2: mapping values are not allowed in this context",
		},
		{
			name: "not a mapping",
			yaml: "- skills\n- prompts\n",
			want: "line 1: the config must be a mapping of keys (scopes, state_timeout_ms, skills, prompts, base_dir, allow_paths, roots, tools, page_size, revisions_kept, index_max_tokens, max_files, max_response_bytes, max_bytes_in_flight, max_frame_bytes, cache_bytes, fs_poll_ms, reconcile_ms, search, mcp, lint, unavailable), got a list",
		},
		{
			name: "mcp of the wrong types",
			yaml: "mcp:\n  sections_allow: docs::*\n",
			want: "line 2: `mcp.sections_allow` must be a list of function ids (e.g. `mcp.sections_allow: [\"docs::*\"]`), got str \"docs::*\"",
		},
		{
			name: "mcp not a mapping",
			yaml: "mcp: [docs::*]\n",
			want: "line 1: `mcp` must be a mapping with a `sections_allow` key, got a list",
		},
		{
			name: "lint not a mapping",
			yaml: "lint: withhold\n",
			want: "line 1: `lint` must be a mapping with a `flagged` key, got str \"withhold\"",
		},
		{
			name: "lint.flagged not a string",
			yaml: "lint:\n  flagged: [note]\n",
			want: "line 2: `lint.flagged` must be a string (serve, note or withhold), got a list (quote the value)",
		},
		{
			name: "unavailable not a string",
			yaml: "unavailable: [hide]\n",
			want: "line 1: `unavailable` must be a string (mark or hide), got a list (quote the value)",
		},
		{
			name: "search of the wrong types",
			yaml: "search:\n  embedder: 42\n  embed_timeout_ms: soon\n",
			want: "line 2: `search.embedder` must be a string (the id of an iii function that embeds texts), got int \"42\" (quote the value); " +
				"line 3: `search.embed_timeout_ms` must be a whole number of milliseconds from 10 to 60000 (default 2000), got str \"soon\"",
		},
		{
			name: "search is a string",
			yaml: "search: embeddings::embed\n",
			want: "line 1: `search` must be a mapping with `embedder` and `embed_timeout_ms` keys, got str \"embeddings::embed\"",
		},
		{
			name: "tools of the wrong types",
			yaml: "tools:\n  enabled: yes please\n  env_allow: GIT_*\n  max_concurrent: many\n",
			want: "line 2: `tools.enabled` must be true or false, got str \"yes please\"; " +
				"line 3: `tools.env_allow` must be a list of environment variable names (e.g. `tools.env_allow: [\"GIT_*\"]`), got str \"GIT_*\"; " +
				"line 4: `tools.max_concurrent` must be a whole number of commands from 1 to 64 (default 4), got str \"many\"",
		},
		{
			name: "tools is a list",
			yaml: "tools: [enabled]\n",
			want: "line 1: `tools` must be a mapping with `enabled`, `workdir`, `env_allow` and `max_concurrent` keys, got a list",
		},
		{
			name: "scopes is a string",
			yaml: "scopes: skills\n",
			want: "line 1: `scopes` must be a mapping with `skills` and `prompts` keys naming iii-state scopes, got str \"skills\"",
		},
		{
			name: "scope is a number",
			yaml: "scopes:\n  skills: 42\n",
			want: "line 2: `scopes.skills` must be a string (an iii-state scope name), got int \"42\" (quote the value)",
		},
		{
			name: "scope is a list",
			yaml: "scopes:\n  prompts: [a]\n",
			want: "line 2: `scopes.prompts` must be a string (an iii-state scope name), got a list (quote the value)",
		},
		{
			name: "timeout is text",
			yaml: "state_timeout_ms: ten seconds\n",
			want: "line 1: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str \"ten seconds\"",
		},
		{
			name: "timeout is quoted",
			yaml: "state_timeout_ms: \"10000\"\n",
			want: "line 1: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str \"10000\"",
		},
		{
			name: "timeout is fractional",
			yaml: "state_timeout_ms: 1.5\n",
			want: "line 1: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got float \"1.5\"",
		},
		{
			name: "timeout overflows",
			yaml: "state_timeout_ms: 99999999999999999999\n",
			want: "line 1: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got float \"99999999999999999999\"",
		},
		{
			name: "skills is a single string",
			yaml: "skills: docs/**/*.md\n",
			want: "line 1: `skills` must be a list of glob patterns (e.g. `skills: [\"docs/**/*.md\"]`), got str \"docs/**/*.md\"",
		},
		{
			name: "prompts is a mapping",
			yaml: "prompts: {a: b}\n",
			want: "line 1: `prompts` must be a list of glob patterns (e.g. `prompts: [\"docs/**/*.md\"]`), got a mapping",
		},
		{
			name: "pattern is not a string",
			yaml: "skills:\n  - ok/*.md\n  - 7\n",
			want: "line 3: `skills` entries must be glob pattern strings, got int \"7\" (quote the value)",
		},
		{
			name: "base_dir is a list",
			yaml: "base_dir: [a]\n",
			want: "line 1: `base_dir` must be a string (a directory path), got a list (quote the value)",
		},
		{
			name: "allow_paths is a single string",
			yaml: "allow_paths: /srv/shared\n",
			want: "line 1: `allow_paths` must be a list of directories (e.g. `allow_paths: [\"/srv/shared-skills\"]`), got str \"/srv/shared\"",
		},
		{
			name: "allow_paths entry is not a string",
			yaml: "allow_paths:\n  - /srv/ok\n  - {a: b}\n  - 3\n",
			want: "line 3: `allow_paths` entries must be directory path strings, got a mapping (quote the value); " +
				"line 4: `allow_paths` entries must be directory path strings, got int \"3\" (quote the value)",
		},
		{
			name: "max_files is text",
			yaml: "max_files: lots\n",
			want: "line 1: `max_files` must be a whole number of directory entries from 1 to 2147483647 (default 100000), got str \"lots\"",
		},
		{
			name: "max_response_bytes is text",
			yaml: "max_response_bytes: 16MiB\n",
			want: "line 1: `max_response_bytes` must be a whole number of bytes from 1024 (1 KiB) to 66060288 (63 MiB) (default 16777216, 16 MiB), got str \"16MiB\"",
		},
		{
			name: "max_files is fractional",
			yaml: "max_files: 1.5\n",
			want: "line 1: `max_files` must be a whole number of directory entries from 1 to 2147483647 (default 100000), got float \"1.5\"",
		},
		{
			name: "max_files overflows",
			yaml: "max_files: 4294967296\n",
			want: "line 1: `max_files` must be a whole number of directory entries from 1 to 2147483647 (default 100000), got int \"4294967296\"",
		},
		{
			name: "repeated key",
			yaml: "state_timeout_ms: 1\nstate_timeout_ms: 2\n",
			want: "line 2: key `state_timeout_ms` is repeated (first at line 1)",
		},
		{
			name: "repeated nested key",
			yaml: "scopes:\n  skills: a\n  skills: b\n",
			want: "line 3: key `scopes.skills` is repeated (first at line 2)",
		},
		{
			name: "every problem is reported",
			yaml: "scopes: 1\nstate_timeout_ms: x\nskills: y\n",
			want: "line 1: `scopes` must be a mapping with `skills` and `prompts` keys naming iii-state scopes, got int \"1\"; " +
				"line 2: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str \"x\"; " +
				"line 3: `skills` must be a list of glob patterns (e.g. `skills: [\"docs/**/*.md\"]`), got str \"y\"",
		},
		{
			name: "binary junk",
			yaml: "\x00\x01\xff\xfe",
			want: "invalid YAML: control characters are not allowed",
		},
		{
			name: "tab indentation",
			yaml: "scopes:\n\tskills: a\n",
			want: "invalid YAML: line 2: found character that cannot start any token",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.yaml))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want error %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(Default(), got); diff != "" {
				t.Errorf("config on error is not Default (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{name: "defaults", cfg: Default()},
		{name: "one millisecond", cfg: with(func(c *Config) { c.StateTimeoutMS = 1 })},
		{name: "longest duration", cfg: with(func(c *Config) { c.StateTimeoutMS = MaxStateTimeoutMS })},
		{
			name: "zero timeout",
			cfg:  with(func(c *Config) { c.StateTimeoutMS = 0 }),
			want: "`state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got 0",
		},
		{
			name: "negative timeout",
			cfg:  with(func(c *Config) { c.StateTimeoutMS = -1 }),
			want: "`state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got -1",
		},
		{
			name: "timeout beyond time.Duration",
			cfg:  with(func(c *Config) { c.StateTimeoutMS = MaxStateTimeoutMS + 1 }),
			want: "`state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got 9223372036855",
		},
		{name: "max_files bounds", cfg: with(func(c *Config) { c.MaxFiles = 1; c.AllowPaths = []string{"/a", "b"} })},
		{name: "largest max_files", cfg: with(func(c *Config) { c.MaxFiles = MaxMaxFiles })},
		{name: "max_response_bytes bounds", cfg: with(func(c *Config) { c.MaxResponseBytes = MinMaxResponseBytes })},
		{name: "largest max_response_bytes", cfg: with(func(c *Config) { c.MaxResponseBytes = MaxMaxResponseBytes })},
		{
			name: "fs_poll_ms too fast",
			cfg:  with(func(c *Config) { c.FSPollMS = 10 }),
			want: "`fs_poll_ms` must be a whole number of milliseconds from 100 to 3600000 (default 2000), got 10",
		},
		{
			name: "negative reconcile_ms",
			cfg:  with(func(c *Config) { c.ReconcileMS = -1 }),
			want: "`reconcile_ms` must be a whole number of milliseconds from 0 (never) to 86400000 (default 5000), got -1",
		},
		{
			name: "negative cache_bytes",
			cfg:  with(func(c *Config) { c.CacheBytes = -1 }),
			want: "`cache_bytes` must be a whole number of bytes from 0 (keep no bodies) to 2147483647 (default 268435456, 256 MiB), got -1",
		},
		{
			name: "negative max_bytes_in_flight",
			cfg:  with(func(c *Config) { c.MaxBytesInFlight = -1 }),
			want: "`max_bytes_in_flight` must be a whole number of bytes from 0 (no bound) to 2147483647 (default 67108864, 64 MiB), got -1",
		},
		{
			name: "max_frame_bytes too small",
			cfg:  with(func(c *Config) { c.MaxFrameBytes = 1000 }),
			want: "`max_frame_bytes` must be a whole number of bytes from 1048576 (1 MiB) to 2147483647 (default 1073741824, 1 GiB), got 1000",
		},
		{
			name: "max_response_bytes over the engine frame",
			cfg:  with(func(c *Config) { c.MaxResponseBytes = 64 << 20 }),
			want: "`max_response_bytes` must be a whole number of bytes from 1024 (1 KiB) to 66060288 (63 MiB) (default 16777216, 16 MiB), got 67108864",
		},
		{
			name: "zero max_files",
			cfg:  with(func(c *Config) { c.MaxFiles = 0 }),
			want: "`max_files` must be a whole number of directory entries from 1 to 2147483647 (default 100000), got 0",
		},
		{
			name: "blank allow_paths entries",
			cfg:  with(func(c *Config) { c.AllowPaths = []string{"/ok", "", " "} }),
			want: "`allow_paths[1]` must be a directory path (a non-blank string), got \"\"; " +
				"`allow_paths[2]` must be a directory path (a non-blank string), got \" \"",
		},
		{
			name: "page_size out of range",
			cfg:  with(func(c *Config) { c.PageSize = -1 }),
			want: "`page_size` must be a whole number of entries from 0 (everything in one answer) to 100000 (default 0), got -1",
		},
		{
			name: "revisions_kept out of range",
			cfg:  with(func(c *Config) { c.RevisionsKept = 1001 }),
			want: "`revisions_kept` must be a whole number of bodies per skill from 0 (keep no history) to 1000 (default 10), got 1001",
		},
		{
			name: "tools.max_concurrent out of range",
			cfg:  with(func(c *Config) { c.Tools.MaxConcurrent = 0 }),
			want: "`tools.max_concurrent` must be a whole number of commands from 1 to 64 (default 4), got 0",
		},
		{
			name: "blank roots entries",
			cfg:  with(func(c *Config) { c.Roots = []string{"./skills", "\t"} }),
			want: "`roots[1]` must be a directory path (a non-blank string), got \"\\t\"",
		},
		{name: "sections allowed over MCP", cfg: with(func(c *Config) { c.MCP.SectionsAllow = []string{"docs::status", "ops::*", "*", "a"} })},
		{
			name: "mcp.sections_allow entries that are no function id or prefix",
			cfg:  with(func(c *Config) { c.MCP.SectionsAllow = []string{"", "docs status", "do*cs::*", "a::b\x00", "**"} }),
			want: "`mcp.sections_allow[0]` " + sectionPatternProblem + ", got \"\"; " +
				"`mcp.sections_allow[1]` " + sectionPatternProblem + ", got \"docs status\"; " +
				"`mcp.sections_allow[2]` " + sectionPatternProblem + ", got \"do*cs::*\"; " +
				"`mcp.sections_allow[3]` " + sectionPatternProblem + ", got \"a::b\\x00\"; " +
				"`mcp.sections_allow[4]` " + sectionPatternProblem + ", got \"**\"",
		},
		{name: "lint.flagged serve", cfg: with(func(c *Config) { c.Lint.Flagged = "serve" })},
		{name: "lint.flagged withhold", cfg: with(func(c *Config) { c.Lint.Flagged = "withhold" })},
		{
			name: "lint.flagged unknown",
			cfg:  with(func(c *Config) { c.Lint.Flagged = "block" }),
			want: "`lint.flagged` must be one of serve, note, withhold (default note), got \"block\"",
		},
		{name: "unavailable hide", cfg: with(func(c *Config) { c.Unavailable = "hide" })},
		{
			name: "unavailable unknown",
			cfg:  with(func(c *Config) { c.Unavailable = "drop" }),
			want: "`unavailable` must be mark or hide (default mark), got \"drop\"",
		},
		{name: "an embedder", cfg: with(func(c *Config) { c.Search = Search{Embedder: "embeddings::embed", EmbedTimeoutMS: 10} })},
		{
			name: "search.embed_timeout_ms out of range",
			cfg:  with(func(c *Config) { c.Search.EmbedTimeoutMS = 60001 }),
			want: "`search.embed_timeout_ms` must be a whole number of milliseconds from 10 to 60000 (default 2000), got 60001",
		},
		{
			name: "search.embedder without a namespace",
			cfg:  with(func(c *Config) { c.Search.Embedder = "embed" }),
			want: embedderProblem(`"embed"`),
		},
		{
			name: "search.embedder with a space",
			cfg:  with(func(c *Config) { c.Search.Embedder = "embeddings::embed texts" }),
			want: embedderProblem(`"embeddings::embed texts"`),
		},
		{
			name: "search.embedder in this worker's namespace",
			cfg:  with(func(c *Config) { c.Search.Embedder = "skill::search" }),
			want: embedderProblem(`"skill::search"`),
		},
		{
			name: "search.embedder in the engine's namespace",
			cfg:  with(func(c *Config) { c.Search.Embedder = "state::get" }),
			want: embedderProblem(`"state::get"`),
		},
		{
			name: "blank scopes",
			cfg:  with(func(c *Config) { c.Scopes = Scopes{Skills: "", Prompts: " \t"} }),
			want: "`scopes.skills` must name an iii-state scope (a non-blank string), got \"\"; " +
				"`scopes.prompts` must name an iii-state scope (a non-blank string), got \" \\t\"",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := tt.cfg.Validate(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}

// embedderProblem is Validate's sentence for a bad search.embedder.
func embedderProblem(got string) string {
	return "`search.embedder` must be the id of an iii function that embeds texts, namespace::name with no spaces " +
		"(e.g. \"embeddings::embed\"), at most 256 bytes, in none of the namespaces engine, state, stream, iii, mcp, a2a, skills, prompts, skill, iii., got " + got
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "scopes: {skills: a}", "state_timeout_ms: 1", "skills: [a, b]", "- x", "a: &a [*a]", "allow_paths: [a, ~]", "max_files: 0x10"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is empty or spans lines", msg)
			}
			if diff := cmp.Diff(Default(), cfg); diff != "" {
				t.Fatalf("config on error is not Default (-want +got):\n%s", diff)
			}
		}
	})
}

// sectionPatternProblem is what Validate says of a bad mcp.sections_allow
// entry.
const sectionPatternProblem = "must be a function id (e.g. \"docs::status\") or a prefix of ids ending in * (e.g. \"docs::*\"), with no spaces, at most 256 bytes"
