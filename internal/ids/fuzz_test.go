package ids

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// seeds holds interesting inputs for every fuzz target.
var seeds = []string{
	"", "a", "my-skill-1", "Bad-Id", "a/b/c", "/a", "a/", "a//b", "fn", "fn/x", "fnx", "x/fn",
	"x/worker::fn", "with space", "skills", strings.Repeat("a", 64), strings.Repeat("a", 65),
	strings.Repeat("a/", 512) + "a", "é", "a\x00b", "\xff", "a/\n",
}

// validSkillID is an independent statement of the skill id rule.
func validSkillID(id string) bool {
	if id == "" || len(id) > MaxIDBytes {
		return false
	}
	segs := strings.Split(id, "/")
	if segs[0] == ReservedFirstSegment {
		return false
	}
	for _, s := range segs {
		if s == "" || len(s) > MaxSegmentBytes || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return false
		}
	}
	return true
}

func FuzzValidateSkillID(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		err := ValidateSkillID(id)
		if (err == nil) != validSkillID(id) {
			t.Fatalf("ValidateSkillID(%q) = %v, but the rule says valid=%v", id, err, validSkillID(id))
		}
		if err == nil {
			for i := 0; i < len(id); i++ {
				if c := id[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '/') {
					t.Fatalf("valid id %q contains byte %q", id, c)
				}
			}
			return
		}
		msg := err.Error()
		if msg == "" || !utf8.ValidString(msg) && utf8.ValidString(id) {
			t.Fatalf("unusable message %q for %q", msg, id)
		}
		if id != "" && !strings.Contains(msg, `"`) {
			t.Fatalf("message %q does not quote the offending value", msg)
		}
	})
}

func FuzzValidatePromptName(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := ValidatePromptName(name)
		want := name != "" && len(name) <= MaxNameBytes && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-_") == ""
		if (err == nil) != want {
			t.Fatalf("ValidatePromptName(%q) = %v, want valid=%v", name, err, want)
		}
		// A valid name is a valid one-segment skill id unless it is "fn".
		if err == nil && name != ReservedFirstSegment && ValidateSkillID(name) != nil {
			t.Fatalf("prompt name %q is not a valid one-segment id", name)
		}
	})
}

func FuzzQuote(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		// Input over MaxQuotedChars characters is cut and its length follows.
		if suffix := fmt.Sprintf("… (%d bytes)", len(s)); utf8.RuneCountInString(s) > MaxQuotedChars {
			cut, ok := strings.CutSuffix(q, suffix)
			if !ok {
				t.Fatalf("Quote(%q) = %s does not end in %q", s, q, suffix)
			}
			q = cut
		}
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			t.Fatalf("Quote(%q) = %s is not wrapped in quotes", s, q)
		}
		inner := q[1 : len(q)-1]
		for _, r := range inner {
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("Quote(%q) = %s contains raw %U", s, q, r)
			}
		}
		if strings.Count(strings.ReplaceAll(inner, `\\`, ""), `"`) != strings.Count(strings.ReplaceAll(inner, `\\`, ""), `\"`) {
			t.Fatalf("Quote(%q) = %s has an unescaped quote", s, q)
		}
	})
}
