package contract

// Function ids of the 0.2 surface (docs/reference.md), in registration
// order.
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

// Function ids added after 0.2, in registration order: the upstream
// v0.3's roots functions (docs/decisions.md D32), search (D40),
// diagnostics (D42) and the MCP Skills extension (D45).
const (
	FnRootsIndex        = "skills::roots::index"
	FnRootsLoad         = "skills::roots::load"
	FnRootsRescan       = "skills::roots::rescan"
	FnSkillSearch       = "skill::search"
	FnSkillsDiagnostics = "skills::diagnostics"
	FnMCPSkillsList     = "skills::mcp-skills-list"
	FnMCPSkillsGet      = "skills::mcp-skills-get"
	FnMCPSkillsRead     = "skills::mcp-skills-read"
	FnMCPSkillsDir      = "skills::mcp-skills-dir"
)

// Trigger types the worker provides, with the descriptions it registers.
const (
	SkillsOnChange             = "skills::on-change"
	SkillsOnChangeDescription  = "Fires after any mutation of the skills registry (register / unregister)."
	PromptsOnChange            = "prompts::on-change"
	PromptsOnChangeDescription = "Fires after any mutation of the prompts registry (register / unregister)."
)

// OversizeHint says how to get a listing that is over the response budget
// (docs/decisions.md D26): page it with page_size, or ask for less of it.
func OversizeHint(functionID string) string {
	switch functionID {
	case FnSkillsResourcesList, FnPromptsMCPList, FnMCPSkillsList, FnMCPSkillsDir:
		return "set page_size in the worker's config to answer it a page at a time"
	case FnSkillsList:
		return "find skills with skill::search, or read iii://skills (cut to the budget)"
	case FnSkillsUsage:
		return "pass id for one skill's usage, or since for the skills used lately"
	}
	return ""
}
