package contract

// Function ids of the revisions of stored skills (docs/decisions.md D83),
// registered after the MCP Skills extension's, in this order.
const (
	FnSkillsHistory  = "skills::history"
	FnSkillsRollback = "skills::rollback"
)

// Descriptions the revisions functions register with.
const (
	SkillsHistoryDescription  = "List the revisions of a stored skill, newest first: number, time, sha256, bytes, the writing worker, and whether its body is still kept for skills::rollback. Files are not versioned by the registry."
	SkillsRollbackDescription = "Restore a kept revision of a stored skill as a new revision (fires skills::on-change). The revision numbers are those of skills::history."
)
