package wire

import (
	"bytes"
	"encoding/json"
)

// ArrayElements splits a JSON array into its elements without decoding
// them, or returns nil when res is not an array. The engine's frames were
// validated when they were decoded, so only strings and nesting need
// tracking here.
func ArrayElements(res json.RawMessage) []json.RawMessage {
	res = bytes.TrimSpace(res)
	if len(res) < 2 || res[0] != '[' || res[len(res)-1] != ']' {
		return nil
	}
	var out []json.RawMessage
	depth, start, inString := 0, -1, false
	for i := 1; i < len(res)-1; i++ {
		c := res[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, bytes.TrimSpace(res[start:i]))
				start = -1
				continue
			}
		case ' ', '\t', '\n', '\r':
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, bytes.TrimSpace(res[start:len(res)-1]))
	}
	if out == nil {
		out = []json.RawMessage{}
	}
	return out
}
