// Package mcpskills is the MCP Skills extension (SEP-2640;
// docs/decisions.md D45) over the content view (package catalog): the
// internal functions (ExampleExtension_Functions lists them) that
// `skills mcp` forwards skills/list, skills/get, resources/read of
// skill:// URIs and resources/directory/read to. Every skill the registry
// serves is an MCP skill at skill://<id>/SKILL.md:
//
//   - a SKILL.md folder under a root is served as it is on disk: the
//     SKILL.md byte for byte, its frontmatter verbatim, and every file of
//     the folder (references, scripts, assets, nested skills) as a
//     supporting file;
//   - a registered or glob skill, which is one markdown body, is served as
//     a SKILL.md synthesised from it: frontmatter with name (the id's last
//     segment) and description (the index line's), then the body.
//
// Not served, with the reason in skills/get's error: a skill whose name
// (the id's last segment, or a folder skill's frontmatter name) is not an
// Agent Skills name or differs from its folder, and a folder past the
// extension's limits (512 files, 16 MiB). The other markdown files of a
// skill folder are files of that skill here, not skills of their own.
package mcpskills

import (
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/paging"
)

// Extension serves the MCP Skills extension's functions. Its handlers may
// run concurrently; its only mutable state is a cache of synthesised
// SKILL.md digests and its budgets (SetBudgets); the folder files'
// digests are the view's (View.FileDigest).
type Extension struct {
	view   *catalog.View
	synth  synthDigests
	limits atomic.Pointer[limits] // SetBudgets's; never nil
}

// Config is what an Extension needs.
type Config struct {
	// View is the content view every answer reads; required.
	View *catalog.View
	// PageSize is how many entries a listing holds when the caller gives
	// no limit; 0 is everything (D43).
	PageSize int
	// MaxResponseBytes bounds every response (D26); zero means the
	// config's default.
	MaxResponseBytes int
}

// New returns the extension over cfg.View. It panics if the view is nil:
// that is a wiring mistake, caught at start-up.
func New(cfg Config) *Extension {
	if cfg.View == nil {
		panic("mcpskills: Config.View is required")
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = config.DefaultMaxResponseBytes
	}
	x := &Extension{view: cfg.View, synth: newSynthDigests()}
	x.SetBudgets(cfg.PageSize, cfg.MaxResponseBytes)
	return x
}

// Functions returns the extension's functions (ExampleExtension_Functions
// lists them), in registration order, with schemas reflected from the Go
// types.
func (x *Extension) Functions() []iii.Function {
	return []iii.Function{
		iii.NewFunction(contract.FnMCPSkillsList, descMCPSkillsList, x.mcpSkillsList),
		iii.NewFunction(contract.FnMCPSkillsGet, descMCPSkillsGet, x.mcpSkillsGet),
		iii.NewFunction(contract.FnMCPSkillsRead, descMCPSkillsRead, x.mcpSkillsRead),
		iii.NewFunction(contract.FnMCPSkillsDir, descMCPSkillsDir, x.mcpSkillsDir),
	}
}

// The extension's function descriptions and URIs.
const (
	descMCPSkillsList = "Internal: returns the MCP Skills extension's skills/list result: every skill as skill://<id>/SKILL.md with its frontmatter and files (uri, sha256 digest, size)."
	descMCPSkillsGet  = "Internal: returns the MCP Skills extension's skills/get result for one skill://<id>/SKILL.md."
	descMCPSkillsRead = "Internal: reads one file of an MCP skill (skill://<id>/<file>) as the MCP resources/read contents envelope."

	// SkillScheme prefixes an MCP skill's file URIs.
	SkillScheme = "skill://"
	skillFile   = "SKILL.md"
)

type mcpSkillsListInput struct {
	Cursor *string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page; absent for the first page."`
	Limit  *int    `json:"limit,omitempty" jsonschema_description:"Skills per page, 1 to 100000; default: the worker's page_size, else all."`
}

// maxSkillsPage bounds a page asked for with limit.
const maxSkillsPage = 100000

type mcpSkillsGetInput struct {
	URI *string `json:"uri" jsonschema:"required" jsonschema_description:"The skill://<id>/SKILL.md URI of the skill."`
}

type mcpSkillsListOutput struct {
	Skills     []mcpSkill `json:"skills"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

type mcpSkillsGetOutput struct {
	Skill mcpSkill `json:"skill"`
}

// mcpSkill is the extension's Skill entry.
type mcpSkill struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"` // a JSON object, encoded once

	Resources []mcpSkillFile `json:"resources"`

	// Meta is MCP's _meta: only on a skill the content checks flagged,
	// under lint.flagged: note, its notes at contract.MetaKeyLint
	// (docs/decisions.md D65); absent everywhere else.
	Meta map[string]any `json:"_meta,omitempty"`
}

// mcpSkillFile is the extension's SkillResource: one file with the
// digest and size of its bytes.
type mcpSkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

type mcpSkillsReadContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"` // base64 on the wire, as MCP's blob
}

type mcpSkillsReadOutput struct {
	Contents []mcpSkillsReadContent `json:"contents"`
}

// skillSource is where an MCP skill's content comes from: a folder on
// disk, or one body from which its SKILL.md is synthesised.
type skillSource struct {
	id     string
	folder string // the folder of a SKILL.md under a root; "" for a body
	path   string // that SKILL.md

	// A body's parts: where it is stored (a state row, or the file at
	// path) and what the synthesised frontmatter says.
	origin      string
	textSHA     string // hex SHA-256 of a stored skill's text, from the view
	revision    int64  // a stored skill's revision (D83); 0 for files and rows without one
	description string
	unserved    string // why the skill is not an MCP skill; "" when it is

	lint *lint.Report // what the content checks found in the view's bytes of it
	// unavailable is what it requires that the engine does not offer now
	// (D85); nil when available.
	unavailable *contract.Missing
}

func skillURI(id string) string { return SkillScheme + id + "/" + skillFile }

// checkLimit checks the limit a caller gave a listing of the extension's.
func checkLimit(limit *int, unit string) error {
	if limit != nil && (*limit < 1 || *limit > maxSkillsPage) {
		return contract.Invalidf("limit %d is out of range; allowed: 1 to %d %s a page", *limit, maxSkillsPage, unit)
	}
	return nil
}

// extensionPage cuts one page of an extension listing: limit entries,
// else page_size, else everything. A cursor is checked either way: these
// listings are new, and no 0.2 client sends one.
func (x *Extension) extensionPage(list string, keys []string, cursor *string, limit *int) (start, end int, next string, err error) {
	size := x.limits.Load().pageSize
	if limit != nil {
		size = *limit
	}
	if size == 0 {
		size = max(len(keys), 1)
	}
	return paging.Cut(list, keys, cursor, size)
}

// isNotFound reports a registry not_found error.
func isNotFound(err error) bool {
	var e *contract.Error
	return errors.As(err, &e) && e.Code == contract.CodeNotFound
}
