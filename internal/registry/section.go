package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// section triggers the function behind an iii://fn/… URI with {} and
// serves its output.
func (r *Registry) section(ctx context.Context, functionID string) (mime, text string, err error) {
	if contract.IsInternal(functionID) {
		return "", "", contract.Forbiddenf("Function '%s' is in an internal namespace and cannot back a skill resource", ids.Unquoted(functionID))
	}
	res, err := r.trigger(ctx, functionID, struct{}{})
	if err != nil {
		return "", "", err
	}
	// A result that will be pretty-printed can only grow, so one already
	// over the budget is refused before it is rendered (docs/decisions.md
	// D26); text results are measured as rendered.
	maxResponse := r.Budgets().MaxResponseBytes
	if _, isText := sectionText(res); !isText && len(res) > maxResponse {
		return "", "", sectionTooLarge(functionID, len(res), maxResponse)
	}
	mime, text = sectionOutput(res)
	if wire := readEnvelope(SectionURI(functionID), mime) + jsonTextLen(text); wire > maxResponse {
		return "", "", sectionTooLarge(functionID, wire, maxResponse)
	}
	return mime, text, nil
}

// sectionTooLarge is the error for a section whose output is over the
// response budget.
func sectionTooLarge(functionID string, size, budget int) error {
	return contract.Unavailablef(
		"section function %s returned %s, over the worker's response budget of %s (max_response_bytes); make the section smaller or split it",
		ids.Unquoted(functionID), formatBytes(size), formatBytes(budget))
}

// sectionOutput normalises a section function's result: a JSON string or
// an object with a string "content" is markdown; anything else (null,
// numbers, arrays, other objects) is pretty-printed JSON with sorted keys.
func sectionOutput(res json.RawMessage) (mime, text string) {
	res = contract.Present(res)
	if res == nil {
		return contract.MIMEJSON, "null"
	}
	if s, ok := sectionText(res); ok {
		return contract.MIMEMarkdown, s
	}
	return contract.MIMEJSON, prettyJSON(res)
}

// sectionText is a section result that is markdown: a JSON string, or an
// object with a string "content".
func sectionText(res json.RawMessage) (string, bool) {
	if s, ok := jsonString(res); ok {
		return s, true
	}
	return contentField(res)
}

// jsonString returns res as a Go string when it is a JSON string.
func jsonString(res json.RawMessage) (string, bool) {
	if len(res) == 0 || res[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(res, &s) != nil {
		return "", false
	}
	return s, true
}

// contentField returns res.content when res is an object whose content is
// a string.
func contentField(res json.RawMessage) (string, bool) {
	if len(res) == 0 || res[0] != '{' {
		return "", false
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(res, &obj) != nil {
		return "", false
	}
	return jsonString(bytes.TrimSpace(obj.Content))
}

// prettyJSON re-renders res with two-space indentation and object keys in
// byte order, as the Rust worker's serde_json output does. Numbers keep
// their text and HTML characters are not escaped.
func prettyJSON(res json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(res))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(res)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return string(res)
	}
	return unescapeLineSeparators(strings.TrimSuffix(buf.String(), "\n"))
}

// unescapeLineSeparators writes U+2028 and U+2029 as the characters
// themselves, as serde_json does: encoding/json always escapes them. Only
// escapes that start with a real backslash are touched (an even run of
// backslashes before "u2028" is literal text).
func unescapeLineSeparators(s string) string {
	if !strings.Contains(s, `\u202`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+5 < len(s) && s[i+1:i+5] == "u202" && (s[i+5] == '8' || s[i+5] == '9') {
			if s[i+5] == '8' {
				b.WriteString("\u2028")
			} else {
				b.WriteString("\u2029")
			}
			i += 5
			continue
		}
		// Any other escape: copy it whole so its second byte is not read
		// as the start of another escape.
		b.WriteByte(s[i])
		if i+1 < len(s) {
			i++
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
