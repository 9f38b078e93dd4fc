// Package paging cuts the worker's listings into pages (docs/decisions.md
// D43): resources-list, mcp-list and the MCP Skills extension's lists. With
// page_size 0 (the default, as 0.2) every entry comes in one answer and a
// cursor is ignored. Otherwise a page holds page_size entries and, when
// more follow, a nextCursor naming the last entry given: the next page
// starts after that entry in the list as it is then, so entries added or
// removed elsewhere never shift a page. A cursor whose entry has gone is
// stale: the caller starts again.
package paging

import (
	"encoding/base64"
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// cursor is what a cursor string carries.
type cursor struct {
	List  string `json:"list"`  // "resources", "prompts", "skills" or "directory"
	After string `json:"after"` // the key of the last entry given
}

// Cursor is the cursor of a page of list that ends with the entry after.
func Cursor(list, after string) string {
	b, _ := json.Marshal(cursor{List: list, After: after})
	return base64.RawURLEncoding.EncodeToString(b)
}

// Cut cuts one page out of keys (the list's entry keys, in order) for
// the cursor given (nil: the first page): the range [start, end) and the
// next cursor, "" on the last page.
func Cut(list string, keys []string, given *string, size int) (start, end int, next string, err error) {
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
		next = Cursor(list, keys[end-1])
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
