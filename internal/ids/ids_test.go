package ids

import (
	"fmt"
	"strings"
	"testing"
)

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestValidateSkillID(t *testing.T) {
	a64, a65 := strings.Repeat("a", 64), strings.Repeat("a", 65)
	long := strings.Repeat("abcdefgh/", 114) + "abcdefghi" // 1035 bytes of valid segments
	tests := []struct {
		name, id, want string
	}{
		{"simple", "my-skill-1", ""},
		{"underscore", "a_b", ""},
		{"nested", "resend/email/send", ""},
		{"fn deeper is fine", "docs/fn-reference", ""},
		{"fn as a later segment", "a/fn", ""},
		{"fn in the middle", "a/fn/c", ""},
		{"fn prefix of a segment", "fnx", ""},
		{"skills is valid", "skills", ""},
		{"64-byte segment", a64 + "/" + a64, ""},
		{"exactly 1024 bytes", strings.Repeat(a64[:63]+"/", 16)[:1023] + "a", ""},

		{"empty", "", "id must be non-empty"},
		{"leading slash", "/a", `id may not have a leading or trailing '/': "/a"`},
		{"trailing slash", "a/", `id may not have a leading or trailing '/': "a/"`},
		{"only a slash", "/", `id may not have a leading or trailing '/': "/"`},
		// Caller input is quoted up to 200 characters, then its length (D27).
		{"slash checked before length", "/" + long, fmt.Sprintf(`id may not have a leading or trailing '/': "/%s"… (%d bytes)`, long[:199], len(long)+1)},
		{"too long", long, fmt.Sprintf("id too long (%d chars; max 1024): %q… (%d bytes)", len(long), long[:200], len(long))},
		{"long single segment reports the total", strings.Repeat("a", 1025), fmt.Sprintf("id too long (1025 chars; max 1024): %q… (1025 bytes)", strings.Repeat("a", 200))},
		{"uppercase", "Bad-Id", `invalid id (segment 1 of "Bad-Id"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "Bad-Id"`},
		{"65-byte segment", a65, `invalid id (segment 1 of "` + a65 + `"): segment too long (65 chars; max 64): "` + a65 + `"`},
		{"doubled slash", "doubled//slash", `invalid id (segment 2 of "doubled//slash"): segment must be non-empty`},
		{"colons", "x/worker::fn", `invalid id (segment 2 of "x/worker::fn"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "worker::fn"`},
		{"space", "with space", `invalid id (segment 1 of "with space"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "with space"`},
		{"dot", "a/b.c", `invalid id (segment 2 of "a/b.c"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "b.c"`},
		{"third segment", "a/b/C", `invalid id (segment 3 of "a/b/C"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "C"`},
		{"reserved fn", "fn", `id may not have "fn" as its first segment (reserved as the iii://fn/ section-URI marker): "fn"`},
		{"reserved fn/", "fn/x", `id may not have "fn" as its first segment (reserved as the iii://fn/ section-URI marker): "fn/x"`},
		{"segments checked before fn", "fn/X", `invalid id (segment 2 of "fn/X"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "X"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errString(ValidateSkillID(tt.id)); got != tt.want {
				t.Errorf("ValidateSkillID(%q)\n got %q\nwant %q", tt.id, got, tt.want)
			}
		})
	}
}

func TestValidatePromptName(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"kebab", "send-email", ""},
		{"underscore and digits", "a_1", ""},
		{"64 bytes", strings.Repeat("n", 64), ""},
		{"empty", "", "name must be non-empty"},
		{"65 bytes", strings.Repeat("n", 65), "name too long (65 chars; max 64)"},
		{"length counted in bytes", strings.Repeat("é", 33), "name too long (66 chars; max 64)"},
		{"uppercase", "Send", `name may only contain lowercase ASCII letters, digits, '-' and '_': "Send"`},
		{"function id", "mcp::send", `name may only contain lowercase ASCII letters, digits, '-' and '_': "mcp::send"`},
		{"slash", "a/b", `name may only contain lowercase ASCII letters, digits, '-' and '_': "a/b"`},
		{"space", "send email", `name may only contain lowercase ASCII letters, digits, '-' and '_': "send email"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errString(ValidatePromptName(tt.in)); got != tt.want {
				t.Errorf("ValidatePromptName(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidateSegment(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"echo", ""},
		{"", "segment must be non-empty"},
		{strings.Repeat("s", 65), `segment too long (65 chars; max 64): "` + strings.Repeat("s", 65) + `"`},
		{"iii.on_foo", `segment may only contain lowercase ASCII letters, digits, '-' and '_': "iii.on_foo"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := errString(ValidateSegment(tt.in)); got != tt.want {
				t.Errorf("ValidateSegment(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestQuote pins Rust's {:?} rendering of a str.
func TestQuote(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Bad-Id", `"Bad-Id"`},
		{"empty", "", `""`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"single quote kept", "it's", `"it's"`},
		{"common escapes", "a\tb\nc\rd", `"a\tb\nc\rd"`},
		{"NUL", "a\x00b", `"a\0b"`},
		{"other C0 control", "\x1b[0m", `"\u{1b}[0m"`},
		{"DEL", "\x7f", `"\u{7f}"`},
		{"C1 control", "a\u0085b", `"a\u{85}b"`},
		{"no-break space", "a\u00a0b", `"a\u{a0}b"`},
		{"zero-width space", "a\u200bb", `"a\u{200b}b"`},
		{"line separator", "\u2028", `"\u{2028}"`},
		{"combining mark", "e\u0301", `"e\u{301}"`},
		{"printable non-ASCII kept", "héllo 日本", `"héllo 日本"`},
		{"emoji kept", "🙂", `"🙂"`},
		{"private use", "\ue000", `"\u{e000}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func ExampleValidateSkillID() {
	for _, id := range []string{"resend/email", "Bad-Id", "fn/x", "a//b"} {
		fmt.Printf("%s: %v\n", id, ValidateSkillID(id))
	}
	// Output:
	// resend/email: <nil>
	// Bad-Id: invalid id (segment 1 of "Bad-Id"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "Bad-Id"
	// fn/x: id may not have "fn" as its first segment (reserved as the iii://fn/ section-URI marker): "fn/x"
	// a//b: invalid id (segment 2 of "a//b"): segment must be non-empty
}

func ExampleQuote() {
	fmt.Println(Quote("worker::fn"), Quote("tab\there"), Quote("nul\x00"))
	// Output: "worker::fn" "tab\there" "nul\0"
}
