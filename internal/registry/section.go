package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
)

// MIME types of resource contents.
const (
	mimeMarkdown = "text/markdown"
	mimeJSON     = "application/json"
)

// internalPrefixes are the namespaces neither a section URI nor a prompt
// handler may reach (worker.md D2): the engine's and the infrastructure
// workers' functions, and this worker's own admin API, so that a crafted
// iii://fn/state/set cannot tunnel into infra. skill:: (singular, the fetch
// alias) is deliberately not listed: triggering it with {} fails its own
// validation, so it cannot recurse.
var internalPrefixes = []string{
	"engine::", "state::", "stream::", "iii.", "iii::", "mcp::", "a2a::", "skills::", "prompts::",
}

// isInternal reports whether functionID is in an internal namespace.
func isInternal(functionID string) bool {
	for _, p := range internalPrefixes {
		if strings.HasPrefix(functionID, p) {
			return true
		}
	}
	return false
}

// section triggers the function behind an iii://fn/… URI with {} and
// serves its output.
func (r *Registry) section(ctx context.Context, functionID string) (mime, text string, err error) {
	if isInternal(functionID) {
		return "", "", forbiddenf("Function '%s' is in an internal namespace and cannot back a skill resource", functionID)
	}
	res, err := r.trigger(ctx, functionID, struct{}{})
	if err != nil {
		return "", "", err
	}
	mime, text = sectionOutput(res)
	return mime, text, nil
}

// sectionOutput normalises a section function's result: a JSON string or
// an object with a string "content" is markdown; anything else (null,
// numbers, arrays, other objects) is pretty-printed JSON with sorted keys.
func sectionOutput(res json.RawMessage) (mime, text string) {
	res = present(res)
	if res == nil {
		return mimeJSON, "null"
	}
	if s, ok := jsonString(res); ok {
		return mimeMarkdown, s
	}
	if s, ok := contentField(res); ok {
		return mimeMarkdown, s
	}
	return mimeJSON, prettyJSON(res)
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
	return strings.TrimSuffix(buf.String(), "\n")
}
