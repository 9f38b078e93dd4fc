package engine

import (
	"bytes"
	"unicode/utf8"
)

// Most JSON that passes through the engine is already in the form
// canonical gives it: workers encode with sorted keys and no whitespace,
// and a result the engine forwarded once comes back unchanged. Decoding
// such a value into maps and encoding it again (about two thirds of the
// engine's CPU for a 1 MB listing, issue 22) only to produce the same
// bytes is waste, so canonical first checks, in one pass that allocates
// nothing, whether the bytes are already what the round trip would give,
// and passes them through when they are. The check is conservative: a
// "no" only means the slow path decides, so a rare form (a key with an
// escape, very deep nesting) may be re-encoded although it is canonical.
// TestCanonicalFastPathIsTheRoundTrip and FuzzCanonical hold it to the
// round trip, byte for byte.

// maxCanonicalDepth bounds the check's recursion; deeper values take the
// slow path (encoding/json's decoder refuses past 10,000 levels).
const maxCanonicalDepth = 1000

// isCanonical reports whether raw is exactly what decodeValue followed by
// encodeValue would make of it.
func isCanonical(raw []byte) bool {
	s := canonicalScan{b: raw}
	return s.value(0) && s.i == len(raw)
}

// canonicalScan walks one JSON text, failing at the first byte the round
// trip would change (or that is not JSON).
type canonicalScan struct {
	b []byte
	i int
}

func (s *canonicalScan) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxCanonicalDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

// object accepts keys in strictly increasing byte order (a map's order
// in encoding/json; equal keys would be merged) and no whitespace. A key
// with an escape is left to the slow path: its order is that of the
// decoded text, not of the bytes.
func (s *canonicalScan) object(depth int) bool {
	var prev []byte
	first := true
	return s.items('}', func() bool {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		key, ok := s.str()
		if !ok || bytes.IndexByte(key, '\\') >= 0 || (!first && bytes.Compare(prev, key) >= 0) {
			return false
		}
		prev, first = key, false
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		return s.value(depth)
	})
}

func (s *canonicalScan) array(depth int) bool {
	return s.items(']', func() bool { return s.value(depth) })
}

// items reads the container that opens at s.i, item reading each of its
// items, with nothing between them but commas.
func (s *canonicalScan) items(close byte, item func() bool) bool {
	s.i++
	if s.i < len(s.b) && s.b[s.i] == close {
		s.i++
		return true
	}
	for {
		if !item() || s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case close:
			s.i++
			return true
		default:
			return false
		}
	}
}

// str accepts a string as encoding/json writes it (stringEnd) and
// returns the bytes between the quotes.
func (s *canonicalScan) str() ([]byte, bool) {
	end, canonical := stringEnd(s.b, s.i)
	if end < 0 || !canonical {
		return nil, false
	}
	text := s.b[s.i+1 : end-1]
	s.i = end
	return text, true
}

// stringEnd returns the index just past the string that starts with the
// quote at b[i] (-1 when it does not end), and whether it is written as
// encoding/json writes strings without HTML escaping (encode.go's
// appendString): valid UTF-8 written raw except U+2028 and U+2029, and
// only the escapes it emits: \" \\ \b \f \n \r \t, \u00xx in lowercase hex
// for the other control characters, \u2028 and \u2029.
func stringEnd(b []byte, i int) (end int, canonical bool) {
	canonical = true
	for i++; i < len(b); {
		for i < len(b) && plainByte[b[i]] { // most of any string
			i++
		}
		if i == len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, canonical
		case c == '\\':
			n := escapeLen(b[i:])
			if n == 0 {
				canonical, n = false, 2 // the escaped byte cannot be the closing quote
			}
			i += n
		case c < 0x20:
			canonical = false // not JSON: the decoder refuses it
			i++
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
				canonical = false
			}
			i += size
		}
	}
	return -1, false
}

// plainByte marks the ASCII bytes a string holds as they are: printable,
// neither quote nor backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escapeLen is the length of the escape at the start of b when it is one
// encoding/json writes, else 0.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		var v rune
		for _, h := range b[2:6] {
			switch {
			case h >= '0' && h <= '9':
				v = v<<4 | rune(h-'0')
			case h >= 'a' && h <= 'f':
				v = v<<4 | rune(h-'a'+10)
			default:
				return 0 // upper-case hex is rewritten in lower case
			}
		}
		switch {
		case v == '\b' || v == '\f' || v == '\n' || v == '\r' || v == '\t':
			return 0 // written in their short form
		case v < 0x20, v == '\u2028', v == '\u2029':
			return 6
		}
	}
	return 0
}

func (s *canonicalScan) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// number accepts any JSON number: decodeValue keeps numbers as
// json.Number, which encodes as written.
func (s *canonicalScan) number() bool {
	b, i := s.b, s.i
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}
