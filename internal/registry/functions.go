package registry

import (
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/iii"
)

// Function ids the worker registers.
const (
	FnSkillsRegister           = "skills::register"
	FnSkillsUnregister         = "skills::unregister"
	FnSkillsList               = "skills::list"
	FnSkillsResourcesList      = "skills::resources-list"
	FnSkillsResourcesRead      = "skills::resources-read"
	FnSkillsResourcesTemplates = "skills::resources-templates"
	FnSkillsFetch              = "skills::fetch_skill"
	FnSkillFetch               = "skill::fetch" // public alias of skills::fetch_skill
	FnPromptsRegister          = "prompts::register"
	FnPromptsUnregister        = "prompts::unregister"
	FnPromptsList              = "prompts::list"
	FnPromptsMCPList           = "prompts::mcp-list"
	FnPromptsMCPGet            = "prompts::mcp-get"
)

// Registered descriptions (docs/reference.md#function-descriptions), exact.
const (
	descSkillsRegister     = "Register a markdown skill so it appears as iii://{id} in resources/list."
	descSkillsUnregister   = "Remove a registered skill by id."
	descSkillsList         = "List registered skills (id, body length, registered_at, origin) without bodies. `origin` is `state` for state-backed entries, `fs` for filesystem-backed."
	descResourcesList      = "Internal: returns the MCP resources/list envelope with the iii://skills index + one iii://{id} entry per registered skill."
	descResourcesRead      = "Internal: resolves an iii:// URI and returns the MCP resources/read contents envelope."
	descResourcesTemplates = "Internal: returns the MCP resources/templates/list envelope."
	descFetch              = "Fetches the content of one or more skill resources identified by iii:// URIs. When you encounter iii:// links in skill instructions, use this tool to retrieve their contents (batch with `uris` when helpful)."
	descPromptsRegister    = "Register a slash-command prompt; clients call prompts/get to render it."
	descPromptsUnregister  = "Remove a registered prompt by name."
	descPromptsList        = "List registered prompts (name, function_id, arg count, registered_at, origin). `origin` is `state` for state-backed entries, `fs` for filesystem-backed."
	descPromptsMCPList     = "Internal: returns the MCP prompts/list envelope (full arguments schema for each registered prompt)."
	descPromptsMCPGet      = "Internal: dispatches a registered prompt handler and normalizes the result for MCP prompts/get."
)

// fetchToolMetadata marks skill::fetch as a tool for the mcp worker in
// both spellings it reads (docs/decisions.md D16), so the tool survives
// deployments that list only exposed functions.
var fetchToolMetadata = json.RawMessage(`{"tool":{"label":"Fetch skill"},"mcp":{"expose":true},"mcp.expose":true}`)

// Functions returns the functions the worker registers, in a stable
// order: the 13 of 0.2, with descriptions, request and response schemas
// reflected from the Go types, and lenient decoding (unknown keys ignored,
// a null payload is {}); then the three skills::roots::* functions of the
// upstream v0.3 (raw JSON, no schemas; D32), skill::search (D40),
// skills::diagnostics (D42) and the MCP Skills extension's four (D45).
func (r *Registry) Functions() []iii.Function {
	fetchAlias := iii.NewFunction(FnSkillFetch, descFetch, r.fetch)
	fetchAlias.Metadata = fetchToolMetadata
	fns := []iii.Function{
		iii.NewFunction(FnSkillsRegister, descSkillsRegister, r.registerSkill),
		iii.NewFunction(FnSkillsUnregister, descSkillsUnregister, r.unregisterSkill),
		iii.NewFunction(FnSkillsList, descSkillsList, r.listSkills),
		iii.NewFunction(FnSkillsResourcesList, descResourcesList, r.resourcesList),
		iii.NewFunction(FnSkillsResourcesRead, descResourcesRead, r.resourcesRead),
		iii.NewFunction(FnSkillsResourcesTemplates, descResourcesTemplates, r.resourcesTemplates),
		iii.NewFunction(FnSkillsFetch, descFetch, r.fetch),
		fetchAlias,
		iii.NewFunction(FnPromptsRegister, descPromptsRegister, r.registerPrompt),
		iii.NewFunction(FnPromptsUnregister, descPromptsUnregister, r.unregisterPrompt),
		iii.NewFunction(FnPromptsList, descPromptsList, r.listPrompts),
		iii.NewFunction(FnPromptsMCPList, descPromptsMCPList, r.mcpListPrompts),
		iii.NewFunction(FnPromptsMCPGet, descPromptsMCPGet, r.getPrompt),
	}
	fns = append(fns, r.rootsFunctions()...)
	fns = append(fns, r.searchFunction(), r.diagnosticsFunction())
	return append(fns,
		iii.NewFunction(FnMCPSkillsList, descMCPSkillsList, r.mcpSkillsList),
		iii.NewFunction(FnMCPSkillsGet, descMCPSkillsGet, r.mcpSkillsGet),
		iii.NewFunction(FnMCPSkillsRead, descMCPSkillsRead, r.mcpSkillsRead),
		iii.NewFunction(FnMCPSkillsDir, descMCPSkillsDir, r.mcpSkillsDir))
}
