package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSkipStringWordBoundaries puts each kind of special byte at every
// offset around the 8-byte words the fast path reads, and checks the
// scanner against encoding/json.
func TestSkipStringWordBoundaries(t *testing.T) {
	specials := []string{`\n`, `\"`, `\\`, `\u00e9`, "é", "\x01", "\x1f", `\x`, "\x7f", "—"}
	for _, sp := range specials {
		for pos := 0; pos < 24; pos++ {
			for _, tail := range []int{0, 3, 9} {
				lit := `"` + strings.Repeat("a", pos) + sp + strings.Repeat("b", tail) + `"`
				b := []byte(lit + ` `)
				end, plain, err := skipString(b, 0)
				if valid := json.Valid([]byte(lit)); valid != (err == nil) {
					t.Fatalf("skipString(%q) err = %v, json.Valid = %v", lit, err, valid)
				}
				if err != nil {
					continue
				}
				if end != len(lit) {
					t.Errorf("skipString(%q) end = %d, want %d", lit, end, len(lit))
				}
				wantPlain := !strings.ContainsAny(sp, "\\") && sp < "\x80"
				if plain != wantPlain {
					t.Errorf("skipString(%q) plain = %v, want %v", lit, plain, wantPlain)
				}
			}
		}
	}
}

func BenchmarkSkipString(b *testing.B) {
	lit := []byte(`"` + strings.Repeat("Send transactional email through the provider's API. ", 80) + `"`)
	b.SetBytes(int64(len(lit)))
	for b.Loop() {
		if _, _, err := skipString(lit, 0); err != nil {
			b.Fatal(err)
		}
	}
}
