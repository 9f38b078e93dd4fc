package mcpserver

import "encoding/json"

// Tool input schemas as clients can use them. A schema reflected from a
// Go type may type a field as ["null", "array"] (a nil slice encodes as
// null); form-building clients such as the MCP Inspector cannot tell
// which input to offer for a list of types, and send the value as a
// string. A tool's arguments are never null on purpose, so such a field
// is given its one other type, at every depth of the schema.

// inputSchema is a function's request schema when it is an object schema,
// with its nullable types made plain; else an open object (MCP requires
// an object).
func inputSchema(raw json.RawMessage) any {
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil && m["type"] == "object" {
		plainTypes(m)
		return m
	}
	return map[string]any{"type": "object"}
}

// values are the schema keywords whose values are data, not schemas.
var values = map[string]bool{"const": true, "default": true, "enum": true, "examples": true}

// plainTypes replaces, in schema and every schema under it, a type list
// of "null" and one other type with that type.
func plainTypes(schema any) {
	switch s := schema.(type) {
	case map[string]any:
		if types, ok := s["type"].([]any); ok {
			var other []any
			for _, t := range types {
				if t != "null" {
					other = append(other, t)
				}
			}
			if len(other) == 1 && len(types) == 2 {
				s["type"] = other[0]
			}
		}
		for k, v := range s {
			if !values[k] {
				plainTypes(v)
			}
		}
	case []any:
		for _, v := range s {
			plainTypes(v)
		}
	}
}
