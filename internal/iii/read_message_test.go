package iii

import (
	"bytes"
	"strings"
	"testing"
)

// Each message read is a slice of its own, as long as the message: handlers keep parts of it (a request's data) while the next
// messages are read into the same pooled buffer, and those never show
// through. A message over the pooled size reads whole too.
func TestReadMessageKeepsEachMessageApart(t *testing.T) {
	var kept [][]byte
	var want []string
	for i, size := range []int{0, 1, 4096, 600, maxPooledRead + 1, 4096, 3} {
		msg := strings.Repeat(string(rune('a'+i)), size)
		data, err := readMessage(strings.NewReader(msg))
		if err != nil {
			t.Fatal(err)
		}
		if data == nil || len(data) != size {
			t.Fatalf("message %d: read %d bytes (nil %v); want exactly %d", i, len(data), data == nil, size)
		}
		kept, want = append(kept, data), append(want, msg)
	}
	for i := range kept {
		if !bytes.Equal(kept[i], []byte(want[i])) {
			t.Errorf("message %d changed after later reads: %.20q…, want %.20q…", i, kept[i], want[i])
		}
	}
}
