package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// maxDepth bounds nesting like encoding/json does, so a hostile frame of
// ten thousand '[' cannot exhaust the stack.
const maxDepth = 10000

// errSyntax is wrapped by every scanning error.
var errSyntax = errors.New("invalid JSON")

// isSpace reports whether c is JSON whitespace (RFC 8259: space, tab, LF,
// CR; not \f, \v or Unicode spaces).
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue validates the JSON value starting at b[i] (no leading space)
// and returns the index just past it. It allocates nothing: frames carry
// megabytes of markdown, and this is the one pass that checks them.
func skipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, fmt.Errorf("%w: unexpected end of input", errSyntax)
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := skipString(b, i)
		return end, err
	case c == '{':
		return skipObject(b, i, depth+1)
	case c == '[':
		return skipArray(b, i, depth+1)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	default:
		return i, fmt.Errorf("%w: unexpected %q at offset %d", errSyntax, c, i)
	}
}

// skipString validates the string starting at b[i] == '"' and returns the
// index past its closing quote and whether it can be used verbatim: pure
// printable ASCII without escapes. Long runs of ordinary bytes are
// skipped eight at a time. Invalid UTF-8 is an error, as it is for the
// engine (serde_json, and WebSocket text frames).
func skipString(b []byte, i int) (end int, plain bool, err error) {
	end, plain, err = scanString(b, i)
	if err == nil && !plain && !utf8.Valid(b[i:end]) {
		return end, false, fmt.Errorf("%w: string at offset %d is not valid UTF-8", errSyntax, i)
	}
	return end, plain, err
}

// scanString is skipString without the UTF-8 check.
func scanString(b []byte, i int) (end int, plain bool, err error) {
	plain = true
	j := i + 1
	for {
		// Fast path: whole words with no quote, backslash or control byte.
		for j+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[j:])
			if special(w) {
				break
			}
			if w&highBits != 0 {
				plain = false
			}
			j += 8
		}
		if j >= len(b) {
			return len(b), false, fmt.Errorf("%w: unterminated string at offset %d", errSyntax, i)
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, plain, nil
		case c == '\\':
			plain = false
			j++
			if j >= len(b) {
				return j, false, fmt.Errorf("%w: unterminated string at offset %d", errSyntax, i)
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					return j, false, fmt.Errorf("%w: bad \\u escape at offset %d", errSyntax, j)
				}
				j += 4
			default:
				return j, false, fmt.Errorf("%w: bad escape at offset %d", errSyntax, j)
			}
		case c < 0x20:
			return j, false, fmt.Errorf("%w: control character in string at offset %d", errSyntax, j)
		case c >= 0x80:
			plain = false
		}
		j++
	}
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// special reports whether any byte of w is a quote, a backslash or a
// control character (below 0x20), with the classic has-zero-byte trick:
// for a byte x, (x - 1) & ^x has its high bit set only when x == 0.
func special(w uint64) bool {
	quote := w ^ (lowBits * '"')
	backslash := w ^ (lowBits * '\\')
	hasZero := func(x uint64) uint64 { return (x - lowBits) &^ x & highBits }
	// A byte below 0x20 is the only kind with its top three bits clear.
	control := w & (lowBits * 0xe0)
	return hasZero(quote)|hasZero(backslash)|hasZero(control) != 0
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, fmt.Errorf("%w: bad literal at offset %d", errSyntax, i)
	}
	return i + len(lit), nil
}

// skipNumber follows the JSON number grammar exactly.
func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return i, fmt.Errorf("%w: bad number at offset %d", errSyntax, start)
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || b[i+1] < '0' || b[i+1] > '9' {
			return i, fmt.Errorf("%w: bad number at offset %d", errSyntax, start)
		}
		i = skipDigits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, fmt.Errorf("%w: bad number at offset %d", errSyntax, start)
		}
		i = skipDigits(b, i)
	}
	return i, nil
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func skipObject(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, fmt.Errorf("%w: nested too deeply", errSyntax)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, fmt.Errorf("%w: expected a key at offset %d", errSyntax, i)
		}
		end, _, err := skipString(b, i)
		if err != nil {
			return end, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return i, fmt.Errorf("%w: expected ':' at offset %d", errSyntax, i)
		}
		if i, err = skipValue(b, skipSpace(b, i+1), depth); err != nil {
			return i, err
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		return i, fmt.Errorf("%w: expected ',' or '}' at offset %d", errSyntax, i)
	}
}

func skipArray(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, fmt.Errorf("%w: nested too deeply", errSyntax)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = skipValue(b, i, depth); err != nil {
			return i, err
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		return i, fmt.Errorf("%w: expected ',' or ']' at offset %d", errSyntax, i)
	}
}

// Valid reports whether b is exactly one JSON value, surrounding
// whitespace allowed, in valid UTF-8. It is a faster json.Valid (which
// lets invalid UTF-8 through) that never allocates.
func Valid(b []byte) bool {
	return validAt(b, 0)
}

// ValidElement reports whether b is one JSON value that is also valid as
// an element of an array: Valid one level of nesting deeper. An array
// joined from ValidElements is Valid, so an array written from its
// elements can be checked without joining them.
func ValidElement(b []byte) bool {
	return validAt(b, 1)
}

func validAt(b []byte, depth int) bool {
	i, err := skipValue(b, skipSpace(b, 0), depth)
	return err == nil && skipSpace(b, i) == len(b)
}
