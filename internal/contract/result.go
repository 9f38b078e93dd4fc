package contract

import (
	"bytes"
	"encoding/json"
)

// Scheme prefixes every resource URI the worker serves (iii://{id},
// iii://skills, iii://fn/…).
const Scheme = "iii://"

// MIME types of resource contents.
const (
	MIMEMarkdown = "text/markdown"
	MIMEJSON     = "application/json"
)

// Present returns nil for an absent or null result, else the result
// trimmed: a function that answers with no result (state::get of a
// missing key) and one that answers null mean the same.
func Present(res json.RawMessage) json.RawMessage {
	res = bytes.TrimSpace(res)
	if len(res) == 0 || bytes.Equal(res, []byte("null")) {
		return nil
	}
	return res
}
