package contract

// skills::usage (docs/decisions.md D84): the usage by stage of each
// skill, merged across the worker's replicas. Registered after the MCP
// Skills extension's functions.
const (
	FnSkillsUsage   = "skills::usage"
	DescSkillsUsage = "Reports how agents used each skill, merged across every replica of this worker: times listed (index, list and MCP list answers), returned by skill::search (by rank: 1, 2-3, 4-10, 11+), read, fetched, and each iii://fn section served, with first and last use; and the skills served but never read or fetched. Input: {since?: RFC 3339 time, the uses from the start of its UTC hour on (at most 48 hours back); id?: one skill id}. Only ids and counts are kept."
)
