package registry

import (
	"fmt"
	"unicode/utf8"
)

// The response budget (docs/decisions.md D26) is measured on the wire: a
// response's size is its JSON encoding, so text is counted as it will be
// escaped, and envelopes around it count too.

// readEnvelope is the resources-read envelope around a text of the index,
// for a budget check before the text exists (the index URI is the longest
// fixed part; other URIs are checked with their own length).
func readEnvelope(uri, mime string) int {
	return len(`{"contents":[{"uri":"","mimeType":"","text":""}]}`) + jsonTextLen(uri) + len(mime)
}

// jsonTextLen is the length of s inside a JSON string as this worker's
// encoder writes it (encoding/json without HTML escaping), or an upper
// bound of it: '"' and '\\' take two bytes, \n \r \t two, other control
// characters six, U+2028 and U+2029 six, and each byte of invalid UTF-8
// six (it becomes \ufffd).
func jsonTextLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// formatBytes renders a byte count for messages: "16 MiB", "16.3 MiB",
// "2.0 KiB", "512 bytes" (binary units; one decimal unless exact).
func formatBytes(n int) string {
	for _, u := range []struct {
		size int
		name string
	}{{1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		switch {
		case n >= u.size && n%u.size == 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		case n >= u.size:
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
