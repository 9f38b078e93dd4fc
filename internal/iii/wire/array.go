package wire

import (
	"encoding/json"
)

// ArrayElements splits a JSON array into its elements without decoding
// them, or returns nil when res is not an array. The engine's frames were
// validated when they were decoded, so only strings and nesting need
// tracking here.
func ArrayElements(res json.RawMessage) []json.RawMessage {
	res = trimSpace(res)
	if len(res) < 2 || res[0] != '[' || res[len(res)-1] != ']' {
		return nil
	}
	var out []json.RawMessage
	var sp splitter
	start := -1
	for i := 1; i < len(res)-1; i++ {
		c := res[i]
		if end, _ := sp.step(c); end {
			out = append(out, trimSpace(res[start:i]))
			start = -1
			continue
		}
		if start < 0 && !isSpace(c) {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, trimSpace(res[start:len(res)-1]))
	}
	if out == nil {
		out = []json.RawMessage{}
	}
	return out
}

// splitter follows a JSON array's bytes after its opening '[' and finds
// where each element ends. Only strings and nesting are tracked: what it
// splits is validated apart.
type splitter struct {
	depth             int
	inString, escaped bool
}

// step reads the next byte c and reports whether it ends the current
// element: a ',' (end) or the array's closing ']' (end and closing),
// outside strings and nesting. depth turns negative on a '}' or ']' that
// closes nothing.
func (s *splitter) step(c byte) (end, closing bool) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
		}
		return false, false
	}
	switch c {
	case '"':
		s.inString = true
	case '{', '[':
		s.depth++
	case '}':
		s.depth--
	case ']':
		if s.depth == 0 {
			return true, true
		}
		s.depth--
	case ',':
		return s.depth == 0, false
	}
	return false, false
}

// trimSpace drops JSON's whitespace from both ends of b, and nothing else:
// bytes.TrimSpace also drops \f, \v and Unicode spaces, which JSON does not
// allow there ("[0\f]" is not an array).
func trimSpace(b []byte) []byte {
	b = b[skipSpace(b, 0):]
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
