package contract

// Function ids of the revisions of stored skills (docs/decisions.md D83),
// registered after the MCP Skills extension's, in this order
// (prompts::rollback since D86).
const (
	FnSkillsHistory  = "skills::history"
	FnSkillsRollback = "skills::rollback"
	FnPromptsHistory = "prompts::history"
	// FnPromptsRollback restores a prompt's definition (D86).
	FnPromptsRollback = "prompts::rollback"
)

// Descriptions the revisions functions register with.
const (
	SkillsHistoryDescription   = "List the revisions of a stored skill, newest first: number, time, sha256, bytes, the writing worker, and whether its body is still kept for skills::rollback. Files are not versioned by the registry."
	SkillsRollbackDescription  = "Restore a kept revision of a stored skill as a new revision (fires skills::on-change). The revision numbers are those of skills::history."
	PromptsRollbackDescription = "Restore a kept revision of a stored prompt's definition as a new revision (fires prompts::on-change). The revision numbers are those of prompts::history."
	PromptsHistoryDescription  = "List the revisions of a stored prompt's definition (description, arguments, function_id), newest first: number, time, sha256, bytes, the writing worker, and whether the definition is still kept for prompts::rollback. Files are not versioned by the registry."
)
