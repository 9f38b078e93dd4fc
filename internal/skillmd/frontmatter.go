package skillmd

import "bytes"

// Fence lines of a frontmatter block.
var (
	openLF    = []byte("---\n")
	openCRLF  = []byte("---\r\n")
	closeLF   = []byte("\n---\n")
	closeCRLF = []byte("\n---\r\n")
	endLF     = []byte("\n---")
	endCR     = []byte("\n---\r")
)

// SplitFrontmatter splits a leading YAML frontmatter block from a file.
//
// A block exists only if b starts at byte 0 with "---\n" or "---\r\n" and
// a closing fence line follows: the first "\n---\n", else the first
// "\n---\r\n", else a final "\n---" or "\n---\r" at the end of b. front is
// the text between the fences (without the newline before the closing
// fence) and body everything after the closing fence line, byte for byte;
// both alias b. Without a block (no opener, or an unclosed one) ok is false
// and body is b itself. "---\n---\n" alone has no block: the closing
// fence must start on a line of its own after the opener's newline.
func SplitFrontmatter(b []byte) (front, body []byte, ok bool) {
	var rest []byte
	switch {
	case bytes.HasPrefix(b, openLF):
		rest = b[len(openLF):]
	case bytes.HasPrefix(b, openCRLF):
		rest = b[len(openCRLF):]
	default:
		return nil, b, false
	}
	if i := bytes.Index(rest, closeLF); i >= 0 {
		return rest[:i], rest[i+len(closeLF):], true
	}
	if i := bytes.Index(rest, closeCRLF); i >= 0 {
		return rest[:i], rest[i+len(closeCRLF):], true
	}
	for _, end := range [][]byte{endLF, endCR} {
		if bytes.HasSuffix(rest, end) {
			n := len(rest) - len(end)
			return rest[:n], rest[len(rest):], true
		}
	}
	return nil, b, false
}
