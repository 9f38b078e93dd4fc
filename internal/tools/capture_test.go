package tools

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// The capture keeps everything up to 4 KiB, whatever the write sizes, and
// beyond that the head and tail with the count between; a cut never
// splits a UTF-8 character.
func TestCapture(t *testing.T) {
	for _, size := range []int{0, 1, HeadBytes, HeadBytes + 1, HeadBytes + TailBytes, HeadBytes + TailBytes + 1, 100_000} {
		for _, chunk := range []int{1, 7, 4096, 1 << 20} {
			data := strings.Repeat("0123456789", size/10+1)[:size]
			var c capture
			for rest := data; rest != ""; {
				n := min(chunk, len(rest))
				_, _ = c.Write([]byte(rest[:n]))
				rest = rest[n:]
			}
			out, truncated := c.output()
			if size <= HeadBytes+TailBytes {
				if truncated || out != data {
					t.Errorf("size %d chunk %d: truncated %v, output differs", size, chunk, truncated)
				}
				continue
			}
			want := data[:HeadBytes] + fmt.Sprintf("\n... [truncated %d bytes] ...\n", size-HeadBytes-TailBytes) + data[size-TailBytes:]
			if !truncated || out != want {
				t.Errorf("size %d chunk %d: truncated %v, output %d bytes, want %d", size, chunk, truncated, len(out), len(want))
			}
		}
	}
	var c capture
	_, _ = c.Write([]byte(strings.Repeat("é", 3000))) // 2-byte runes: 2048 falls between runes, the tail start too
	_, _ = c.Write([]byte("x"))
	out, _ := c.output()
	if !utf8.ValidString(out) {
		t.Error("the cut split a UTF-8 character")
	}
}
