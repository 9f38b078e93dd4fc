package registry

import (
	"encoding/base64"
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// Pagination of resources-list and mcp-list (docs/decisions.md D43). With
// page_size 0 (the default, as 0.2) every entry comes in one answer and a
// cursor is ignored. Otherwise a page holds page_size entries and, when
// more follow, a nextCursor naming the last entry given: the next page
// starts after that entry in the list as it is then, so entries added or
// removed elsewhere never shift a page. A cursor whose entry has gone is
// stale: the caller starts again.

// listInput is the payload of the paginated listings; the mcp worker
// passes the MCP params through, cursor included (D15).
type listInput struct {
	Cursor *string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page; absent for the first page."`
}

// cursor is what a cursor string carries.
type cursor struct {
	List  string `json:"list"`  // "resources" or "prompts"
	After string `json:"after"` // the key of the last entry given
}

func encodeCursor(list, after string) string {
	b, _ := json.Marshal(cursor{List: list, After: after})
	return base64.RawURLEncoding.EncodeToString(b)
}

// page cuts one page out of keys (the list's entry keys, in order) for
// the cursor given (nil: the first page): the range [start, end) and the
// next cursor, "" on the last page.
func page(list string, keys []string, given *string, size int) (start, end int, next string, err error) {
	if given != nil && *given != "" {
		after, err := decodeCursor(list, *given)
		if err != nil {
			return 0, 0, "", err
		}
		start = -1
		for i, k := range keys {
			if k == after {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return 0, 0, "", contract.Invalidf("stale cursor: %s is no longer in the list; start again without a cursor", ids.Quote(after))
		}
	}
	end = min(start+size, len(keys))
	if end < len(keys) {
		next = encodeCursor(list, keys[end-1])
	}
	return start, end, next, nil
}

func decodeCursor(list, s string) (string, error) {
	garbage := contract.Invalidf("cursor %s is not one this worker gave out; pass the nextCursor of the previous page, or no cursor for the first page", ids.Quote(s))
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", garbage
	}
	var c cursor
	if json.Unmarshal(b, &c) != nil || c.List == "" || c.After == "" {
		return "", garbage
	}
	if c.List != list {
		return "", contract.Invalidf("cursor is for the %s list, not the %s list; pass the nextCursor of this list's previous page", c.List, list)
	}
	return c.After, nil
}

// OversizeHint says how to get a listing that is over the response budget
// (D26): page it with page_size, or ask for less of it.
func OversizeHint(functionID string) string {
	switch functionID {
	case contract.FnSkillsResourcesList, contract.FnPromptsMCPList, contract.FnMCPSkillsList, contract.FnMCPSkillsDir:
		return "set page_size in the worker's config to answer it a page at a time"
	case contract.FnSkillsList:
		return "find skills with skill::search, or read iii://skills (cut to the budget)"
	}
	return ""
}
