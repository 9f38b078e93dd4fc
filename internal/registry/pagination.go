package registry

import "github.com/iii-hq/skills-go/internal/catalog"

// listInput is the payload of the paginated listings; the mcp worker
// passes the MCP params through, cursor included (D15).
type listInput struct {
	Cursor *string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page; absent for the first page."`
	// After is additive: catalog.After (docs/decisions.md D78).
	After catalog.After `json:"after,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): a version a write answered with, or a list of them; the answer includes those writes or newer values."`
}
