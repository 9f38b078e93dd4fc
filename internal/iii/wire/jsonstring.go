package wire

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes a JSON string carries as they are: printable,
// not a quote or a backslash.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string for a frame's own fields:
// quotes, backslashes and control characters escaped (\b and \f as
// \u0008 and \u000c), invalid UTF-8 replaced by U+FFFD (as encoding/json
// does), U+2028 and U+2029 escaped so the frame is also valid JavaScript.
func appendString(buf []byte, s string) []byte {
	return appendQuoted(buf, s, false)
}

// AppendJSONString appends s as a JSON string byte for byte as
// encoding/json writes it with SetEscapeHTML(false), the encoder a
// handler's result goes through: appendString's rules, with \b and \f in
// their short forms. A result that writes itself (iii.JSONAppender)
// escapes its strings with it, so its bytes are the ones reflection would
// have produced (docs/decisions.md D52).
func AppendJSONString(dst []byte, s string) []byte {
	return appendQuoted(dst, s, true)
}

// Masks for plainWord: a byte in every lane of a word.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// word loads the first 8 bytes of s, little-endian.
func word(s string) uint64 {
	_ = s[7] // one bounds check, so the eight loads combine into one
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// specialLanes is non-zero when a byte of w needs more than copying: not
// ASCII, a control character, a quote or a backslash. Skipping a skill
// body a word at a time is what makes escaping it a small cost next to
// copying it (docs/decisions.md D52).
func specialLanes(w uint64) uint64 {
	quote, backslash := w^'"'*lanes01, w^'\\'*lanes01
	return (w | (w-0x20*lanes01)&^w | (quote-lanes01)&^quote | (backslash-lanes01)&^backslash) & lanes80
}

func appendQuoted(buf []byte, s string, shortBF bool) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		for len(s)-i >= 8 && specialLanes(word(s[i:])) == 0 {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c == '\b' && shortBF:
				buf = append(buf, '\\', 'b')
			case c == '\f' && shortBF:
				buf = append(buf, '\\', 'f')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
