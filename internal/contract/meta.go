package contract

// MetaKeyLint is the _meta key under which the MCP listings
// (resources-list, prompts::mcp-list, the MCP Skills extension's
// skills/list and skills/get) note a flagged entry's findings under
// lint.flagged: note (docs/decisions.md D65): [{"rule", "line"}, …], the
// shape of the lint field of skills::list and prompts::list. The prefix
// is reverse DNS, as MCP asks of _meta keys, and not one MCP reserves
// (those whose second label is modelcontextprotocol or mcp).
const MetaKeyLint = "dev.iii.skills/lint"

// MetaKeyRevision is the _meta key under which the MCP Skills extension's
// skills/list and skills/get name a stored skill's revision, as
// skills::history numbers them (docs/decisions.md D83); absent for files
// and for rows written with no history.
const MetaKeyRevision = "dev.iii.skills/revision"

// MetaKeyUnavailable is the _meta key under which the MCP listings
// (resources-list, the MCP Skills extension's skills/list and skills/get)
// name what a skill requires that the engine does not offer now, under
// unavailable: mark (docs/decisions.md D85): {"functions": […],
// "skills": […]}, the shape of skills::list's unavailable field.
const MetaKeyUnavailable = "dev.iii.skills/unavailable"
