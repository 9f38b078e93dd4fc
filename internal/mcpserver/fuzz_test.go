package mcpserver

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// readLine never returns more than MaxLineBytes+1 bytes, and a line it
// drops is counted.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"a\nb\n", "", "\n\n", "no newline", strings.Repeat("x", 70000) + "\ny"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(in), 16)
		total := 0
		for {
			line, over, err := readLine(r)
			if len(line) > MaxLineBytes+1 || (over > 0 && line != nil) {
				t.Fatalf("line of %d bytes, over %d", len(line), over)
			}
			total += len(line) + over
			if err != nil {
				break
			}
			total++ // the newline
		}
		if total != len(in) && total != len(in)+1 {
			t.Fatalf("read %d bytes of %d", total, len(in))
		}
	})
}

// No request ends a session: any URI, name, value and arguments, sent
// through every method the server answers (exercise), over the stdio
// transport in memory, leave a session that answers a ping after each.
//
//	go test -run '^$' -fuzz FuzzMCPSessionSurvives -fuzztime 60s ./internal/mcpserver/
func FuzzMCPSessionSurvives(f *testing.F) {
	for _, s := range sessionSeeds {
		f.Add(s.uri, s.name, s.value, s.args)
	}
	r := newRigTB(f, 0, SectionsAllow("ops::*"))
	fuzzFixtures(f, r)
	f.Fuzz(func(t *testing.T, uri, name, value string, args []byte) {
		exercise(t, r.dial(t, "stdio"), sessionInput{uri, name, value, args})
	})
}
