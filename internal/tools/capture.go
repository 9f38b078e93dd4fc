package tools

import (
	"fmt"
	"unicode/utf8"
)

// Output limits (seed §4.2): the first and the last 2 KiB are kept.
const (
	HeadBytes = 2048
	TailBytes = 2048
)

// capture keeps the head and the tail of everything written to it, and
// counts the rest: a command's output is never held whole (D38).
type capture struct {
	head  []byte
	tail  []byte // a ring of the last TailBytes after the head
	start int    // index of the oldest byte in tail once it is full
	total int64
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := HeadBytes - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= TailBytes {
		c.tail = append(c.tail[:0], p[len(p)-TailBytes:]...)
		c.start = 0
		return n, nil
	}
	for _, b := range p {
		if len(c.tail) < TailBytes {
			c.tail = append(c.tail, b)
			continue
		}
		c.tail[c.start] = b
		c.start = (c.start + 1) % TailBytes
	}
	return n, nil
}

// output is what was kept, with a marker naming how many bytes were left
// out between head and tail; truncated reports whether any were. The cut
// never splits a UTF-8 sequence.
func (c *capture) output() (out string, truncated bool) {
	tail := append(append([]byte{}, c.tail[c.start:]...), c.tail[:c.start]...)
	if c.total <= HeadBytes+TailBytes {
		return string(c.head) + string(tail), false
	}
	head := c.head
	for cut := 0; cut < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); cut++ {
		head = head[:len(head)-1]
	}
	for cut := 0; cut < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); cut++ {
		tail = tail[1:]
	}
	omitted := c.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n... [truncated %d bytes] ...\n%s", head, omitted, tail), true
}
