package registry

import (
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
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

// Functions returns the registry's functions, in a stable order: 0.2's
// (ExampleRegistry_Functions lists them), with descriptions, request and response schemas
// reflected from the Go types, and lenient decoding (unknown keys ignored,
// a null payload is {}). The worker registers the other surfaces'
// functions after these.
func (r *Registry) Functions() []iii.Function {
	fetchAlias := iii.NewFunction(contract.FnSkillFetch, descFetch, r.fetch)
	fetchAlias.Metadata = fetchToolMetadata
	return []iii.Function{
		iii.NewFunction(contract.FnSkillsRegister, descSkillsRegister, r.registerSkill),
		iii.NewFunction(contract.FnSkillsUnregister, descSkillsUnregister, r.unregisterSkill),
		answeringWith[listSkillsOutput](iii.NewFunction(contract.FnSkillsList, descSkillsList, r.encodedList)),
		iii.NewFunction(contract.FnSkillsResourcesList, descResourcesList, r.resourcesList),
		answeringWith[readResourceOutput](iii.NewFunction(contract.FnSkillsResourcesRead, descResourcesRead, r.encodedRead)),
		iii.NewFunction(contract.FnSkillsResourcesTemplates, descResourcesTemplates, r.resourcesTemplates),
		iii.NewFunction(contract.FnSkillsFetch, descFetch, r.fetch),
		fetchAlias,
		iii.NewFunction(contract.FnPromptsRegister, descPromptsRegister, r.registerPrompt),
		iii.NewFunction(contract.FnPromptsUnregister, descPromptsUnregister, r.unregisterPrompt),
		iii.NewFunction(contract.FnPromptsList, descPromptsList, r.listPromptsAfter),
		iii.NewFunction(contract.FnPromptsMCPList, descPromptsMCPList, r.mcpListPrompts),
		iii.NewFunction(contract.FnPromptsMCPGet, descPromptsMCPGet, r.getPrompt),
	}
}
