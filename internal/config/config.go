// Package config is the worker's configuration as plain data: Default,
// then Parse (or Load, which reads, parses and validates a file; LoadAt,
// which also records where Locate found it), then any flag overrides,
// then Validate; Resolve then settles what a config without a roots key
// serves in each mode (docs/decisions.md D49), and RelativeTo what its
// relative paths mean (D57).
// Nothing here logs or touches the network;
// the caller decides what a bad config means (the worker logs a warning
// per key in Config.Problems, each kept at its default, D66, or one
// warning and Default for a file it cannot read as keys).
package config

import (
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/requires"
)

// Defaults, as in the reference worker's config.rs and --manifest.
const (
	DefaultSkillsScope    = "skills"
	DefaultPromptsScope   = "prompts"
	DefaultStateTimeoutMS = 10000
	// DefaultMaxFiles bounds the directory entries one glob walks
	// (docs/decisions.md D25).
	DefaultMaxFiles = 100000
	// DefaultMaxResponseBytes bounds every response the worker builds:
	// 16 MiB, well under the engine's 64 MiB frame (docs/decisions.md D26).
	DefaultMaxResponseBytes = 16 << 20
	// DefaultMaxBytesInFlight bounds the bytes of the responses being
	// built and sent at once, across callers: four responses of the
	// largest size (docs/decisions.md D64).
	DefaultMaxBytesInFlight = 4 * DefaultMaxResponseBytes
	// DefaultMaxFrameBytes bounds one inbound engine frame: 1 GiB, so a
	// state::list of a scope over the engine's usual 64 MiB still arrives
	// (docs/decisions.md D22).
	DefaultMaxFrameBytes = 1 << 30
	// DefaultCacheBytes bounds the skill bodies the catalog keeps
	// (docs/decisions.md D17, D54).
	DefaultCacheBytes = 256 << 20
	// DefaultFSPollMS is the overlay's rescan period when files cannot be
	// watched (docs/decisions.md D20).
	DefaultFSPollMS = 2000
	// DefaultReconcileMS is how often the catalog compares its mirror
	// with the state store, for writes no state event announced (a write
	// through another engine sharing the store; docs/decisions.md D73).
	DefaultReconcileMS = 5000
	// DefaultRevisionsKept is how many bodies per stored skill its history
	// keeps for skills::rollback (docs/decisions.md D83).
	DefaultRevisionsKept = 10
	// DefaultEmbedTimeoutMS bounds one call to search.embedder
	// (docs/decisions.md D50).
	DefaultEmbedTimeoutMS = 2000
)

// ConventionalRoots are the folders where Agent Skills are usually kept
// (docs/decisions.md D30): the shipped config.yaml lists them, and
// `skills dev` serves them when its config has no roots key.
var ConventionalRoots = []string{"./skills", "./.agents/skills", "~/.claude/skills", "~/.codex/skills"}

// UpstreamDefaultRoots are what skills::roots::* scan when a worker's
// config has no roots key (Resolve, ModeWorker; docs/decisions.md D32):
// the upstream worker's defaults. The view then serves no roots, so a 0.2
// config is unchanged.
var UpstreamDefaultRoots = []string{"./skills", "~/.iii/skills", "~/.claude/skills", "~/.codex/skills"}

// The range max_frame_bytes accepts: 1 MiB to the largest int32.
const (
	MinMaxFrameBytes = 1 << 20
	MaxMaxFrameBytes = math.MaxInt32
)

// The range max_response_bytes accepts: at least 1 KiB, at most 63 MiB
// (the engine's 64 MiB frame less room for the envelope).
const (
	MinMaxResponseBytes = 1 << 10
	MaxMaxResponseBytes = 63 << 20
)

// MaxMaxFiles is the largest max_files accepted: the largest int on every
// platform.
const MaxMaxFiles = math.MaxInt32

// MaxStateTimeoutMS is the longest state_timeout_ms a time.Duration holds.
const MaxStateTimeoutMS = math.MaxInt64 / int64(time.Millisecond)

// Config is the worker configuration. The yaml tags name the keys of the
// config file; Parse reads them (see Parse for the accepted types).
type Config struct {
	// Scopes are the iii-state scopes of the two registries.
	Scopes Scopes `yaml:"scopes"`
	// StateTimeoutMS bounds every state::* call and every section or
	// prompt-handler trigger, in milliseconds.
	StateTimeoutMS int64 `yaml:"state_timeout_ms"`
	// Skills are glob patterns of filesystem-backed skills.
	Skills []string `yaml:"skills"`
	// Prompts are glob patterns of filesystem-backed prompts.
	Prompts []string `yaml:"prompts"`
	// BaseDir, when set, is the directory relative glob patterns resolve
	// against (docs/decisions.md D10); a relative BaseDir is itself resolved
	// as GlobBase says (D57). "~" is not expanded.
	BaseDir string `yaml:"base_dir"`
	// AllowPaths are directories outside the globs' roots that symbolic
	// links under a glob may point into and still be served
	// (docs/decisions.md D24). Relative entries resolve against GlobBase, as patterns do;
	// "~" is not expanded.
	AllowPaths []string `yaml:"allow_paths"`
	// MaxFiles bounds the directory entries one glob pattern's walk reads
	// (docs/decisions.md D25); a walk that reaches it stops and says so.
	MaxFiles int `yaml:"max_files"`
	// MaxResponseBytes bounds every response: a skill::fetch over it is
	// refused, the index is cut with a note, any other result over it is
	// an unavailable error (docs/decisions.md D26).
	MaxResponseBytes int `yaml:"max_response_bytes"`
	// MaxBytesInFlight bounds the bytes of the large responses being built
	// and sent at once, whoever asked: a caller past it waits, at most
	// a few seconds, then gets unavailable; 0 is no bound
	// (docs/decisions.md D64).
	MaxBytesInFlight int `yaml:"max_bytes_in_flight"`
	// MaxFrameBytes bounds one frame the worker accepts from the engine;
	// a bigger one ends the connection (docs/decisions.md D22).
	MaxFrameBytes int `yaml:"max_frame_bytes"`
	// CacheBytes bounds the skill bodies kept: in the catalog's body store
	// file, or in memory when it cannot be written; a read of a body not
	// kept asks the engine. 0 keeps none (docs/decisions.md D17, D54).
	CacheBytes int `yaml:"cache_bytes"`
	// Roots are folders of Agent Skills (<root>/<name>/SKILL.md,
	// docs/decisions.md D30), in precedence order; a leading "~/" is the
	// home directory and relative folders resolve against GlobBase. Empty
	// by default, so a 0.2 config serves no roots.
	Roots []string `yaml:"roots"`
	// RootsSet reports whether the config file has a roots key: without
	// one, skills::roots::* scan the upstream worker's default roots
	// (docs/decisions.md D32). Never read from YAML.
	RootsSet bool `yaml:"-"`
	// RootsByMode reports that Roots are the mode's conventional folders
	// (Resolve, ModeDev), not the file's: a missing one is no surprise,
	// so it is not warned of (D66). Never read from YAML.
	RootsByMode bool `yaml:"-"`
	// IndexMaxTokens bounds iii://skills at this many tokens (bytes/4):
	// deeper levels fold into one line per parent first; 0 is no bound, as
	// 0.2 (docs/decisions.md D44).
	IndexMaxTokens int `yaml:"index_max_tokens"`
	// PageSize is how many entries a resources-list or mcp-list answer
	// holds, with a nextCursor for the rest; 0 returns everything at once,
	// as 0.2 did (docs/decisions.md D43).
	PageSize int `yaml:"page_size"`
	// RevisionsKept is how many bodies per stored skill its history keeps,
	// the current one included, for skills::rollback (docs/decisions.md D83).
	RevisionsKept int `yaml:"revisions_kept"`
	// Tools configures the typed tools of SKILL.md files
	// (docs/decisions.md D34–D39); off unless Tools.Enabled.
	Tools Tools `yaml:"tools"`
	// FSPollMS is how often, in milliseconds, the overlay is rescanned
	// where its directories cannot be watched (docs/decisions.md D20).
	FSPollMS int `yaml:"fs_poll_ms"`
	// ReconcileMS is how often, in milliseconds, the catalog lists its
	// scopes again to find writes no state event announced; 0 never
	// (docs/decisions.md D73).
	ReconcileMS int `yaml:"reconcile_ms"`
	// Search configures skill::search's optional embedder
	// (docs/decisions.md D50); lexical ranking only by default.
	Search Search `yaml:"search"`
	// MCP configures skills mcp, the MCP server (docs/mcp.md).
	MCP MCP `yaml:"mcp"`
	// Lint configures the content checks (docs/decisions.md D65).
	Lint Lint `yaml:"lint"`
	// Unavailable is what the worker does with a skill whose requirements
	// (its iii://fn links, its frontmatter's requires) the live engine
	// does not meet: mark or hide (docs/decisions.md D85).
	Unavailable string `yaml:"unavailable"`
	// Dir is the absolute directory of the config file Load read; "" when
	// no file was loaded. It is never read from YAML.
	Dir string `yaml:"-"`
	// Origin is where the file's path came from (LoadAt): with Dir, it
	// decides what relative paths are relative to (GlobBase, D57). Never
	// read from YAML.
	Origin Origin `yaml:"-"`
	// UnknownKeys are the keys of the file the worker does not read, in
	// file order (most often misspellings); Parse lists them, the caller
	// warns. Never read from YAML.
	UnknownKeys []UnknownKey `yaml:"-"`
	// Problems are the keys of the file whose values could not be used,
	// each kept at its default (Load; docs/decisions.md D66); the caller
	// warns. Never read from YAML.
	Problems []Problem `yaml:"-"`
}

// Tools is the tools: block.
type Tools struct {
	// Enabled turns tools on: approved SKILL.md tools are served as
	// functions. Off by default.
	Enabled bool `yaml:"enabled"`
	// Workdir is the working directory of every command; "" runs each in
	// its skill's folder. Relative to GlobBase.
	Workdir string `yaml:"workdir"`
	// EnvAllow names environment variables passed to commands besides
	// PATH, HOME, USER, LANG, LC_*, TERM and TZ; a trailing * matches any
	// suffix. A credential (by name: *TOKEN, *PASSWORD, *_KEY, AWS_*,
	// SSH_AUTH_SOCK and the rest of tools.Credential's list; by value: a
	// URL with a password, a private key, a known token format) passes
	// only through an entry that names it exactly, without *.
	EnvAllow []string `yaml:"env_allow"`
	// MaxConcurrent bounds the commands running at once; more wait.
	MaxConcurrent int `yaml:"max_concurrent"`
}

// Search is the search: block.
type Search struct {
	// Embedder is the id of an iii function that embeds texts
	// ({"texts": [...]} → {"vectors": [[...], ...]}): its ranking of a
	// need is fused with the lexical one. "" (the default) ranks
	// lexically only.
	Embedder string `yaml:"embedder"`
	// EmbedTimeoutMS bounds each call to the embedder, in milliseconds;
	// a search whose query is not embedded in time answers lexically.
	EmbedTimeoutMS int `yaml:"embed_timeout_ms"`
}

// EmbedTimeout is EmbedTimeoutMS as a duration.
func (s Search) EmbedTimeout() time.Duration {
	return time.Duration(s.EmbedTimeoutMS) * time.Millisecond
}

// MCP is the mcp: block.
type MCP struct {
	// SectionsAllow names the functions whose iii://fn sections MCP
	// clients may read although they are not exposed to MCP (metadata
	// "mcp.expose": true): each entry a function id, or a prefix ending
	// in * (docs/decisions.md D60). Empty by default: a section runs over
	// MCP only an exposed function. The bus is not affected.
	SectionsAllow []string `yaml:"sections_allow"`
}

// Lint is the lint: block.
type Lint struct {
	// Flagged is what the worker does with a skill or prompt the content
	// checks flag: "serve" it as if unflagged, "note" the findings in its
	// skills::list and prompts::list entries (the default), or "withhold"
	// it (not listed; a read is refused naming the rule). Unflagged
	// content is served as before in every mode.
	Flagged string `yaml:"flagged"`
}

// DefaultToolsMaxConcurrent is tools.max_concurrent's default.
const DefaultToolsMaxConcurrent = 4

// Scopes names the iii-state scopes.
type Scopes struct {
	Skills  string `yaml:"skills"`
	Prompts string `yaml:"prompts"`
}

// Default returns the configuration used when no valid file is loaded.
func Default() Config {
	return Config{
		Scopes:         Scopes{Skills: DefaultSkillsScope, Prompts: DefaultPromptsScope},
		StateTimeoutMS: DefaultStateTimeoutMS,
		Skills:         []string{},
		Prompts:        []string{},
		AllowPaths:     []string{},
		Roots:          []string{},
		Tools:          Tools{EnvAllow: []string{}, MaxConcurrent: DefaultToolsMaxConcurrent},
		Search:         Search{EmbedTimeoutMS: DefaultEmbedTimeoutMS},
		MCP:            MCP{SectionsAllow: []string{}},
		Lint:           Lint{Flagged: string(lint.DefaultMode)},
		Unavailable:    string(requires.DefaultMode),
		MaxFiles:       DefaultMaxFiles,

		MaxResponseBytes: DefaultMaxResponseBytes,
		MaxBytesInFlight: DefaultMaxBytesInFlight,
		MaxFrameBytes:    DefaultMaxFrameBytes,
		CacheBytes:       DefaultCacheBytes,
		FSPollMS:         DefaultFSPollMS,
		ReconcileMS:      DefaultReconcileMS,
		RevisionsKept:    DefaultRevisionsKept,
	}
}

// Reconcile is ReconcileMS as a duration.
func (c Config) Reconcile() time.Duration {
	return time.Duration(c.ReconcileMS) * time.Millisecond
}

// FSPoll is FSPollMS as a duration.
func (c Config) FSPoll() time.Duration {
	return time.Duration(c.FSPollMS) * time.Millisecond
}

// StateTimeout is StateTimeoutMS as a duration.
func (c Config) StateTimeout() time.Duration {
	return time.Duration(c.StateTimeoutMS) * time.Millisecond
}

// GlobBase is the directory relative glob patterns, roots, allow_paths
// and tools.workdir resolve against: BaseDir if set (a relative one joined
// to RelativeTo), else RelativeTo.
func (c Config) GlobBase() string {
	dir := c.RelativeTo()
	switch {
	case c.BaseDir == "":
		return dir
	case filepath.IsAbs(c.BaseDir):
		return filepath.Clean(c.BaseDir)
	default:
		return filepath.Join(dir, c.BaseDir)
	}
}

// RelativeTo is the directory a config's relative paths start from (a
// relative base_dir, else every relative glob, root, allow path and
// tools.workdir) and where tools.lock lives. It is the one rule for where
// a config came from (docs/decisions.md D10, D57):
//
//   - a file the operator keeps, named by --config or found at
//     ./config.yaml, anchors them to its own directory (D10), wherever the
//     worker is started from;
//   - a file $III_CONFIG names was written by a supervisor into a
//     directory of its own (iii compose: ~/.iii/compose/<ns>/<project>/
//     config/, which holds nothing of the worker's), so its paths resolve
//     against the working directory, which the supervisor sets to the
//     worker's or the project's directory (compose: the container's
//     working_dir, else the path:// worker's directory, else the compose
//     file's);
//   - without a file, the working directory, as in the reference worker.
func (c Config) RelativeTo() string {
	if c.Origin == OriginEnv || c.Dir == "" {
		return workingDir()
	}
	return c.Dir
}

// AllowDirs is AllowPaths made absolute and cleaned: relative entries
// join GlobBase, as relative glob patterns do.
func (c Config) AllowDirs() []string {
	base := c.GlobBase()
	dirs := make([]string, 0, len(c.AllowPaths))
	for _, p := range c.AllowPaths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		dirs = append(dirs, filepath.Clean(p))
	}
	return dirs
}

// LockPath is where tools.lock lives: in RelativeTo, which is next to a
// config file the operator keeps, else in the working directory.
func (c Config) LockPath() string {
	return filepath.Join(c.RelativeTo(), "tools.lock")
}

// ToolsWorkdir is tools.workdir made absolute against GlobBase; "" when
// unset.
func (c Config) ToolsWorkdir() string {
	if c.Tools.Workdir == "" || filepath.IsAbs(c.Tools.Workdir) {
		return c.Tools.Workdir
	}
	return filepath.Join(c.GlobBase(), c.Tools.Workdir)
}

// workingDir is the current directory, or "." if it cannot be found (it
// was removed), as in the reference.
func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
