package skillmd

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTitle(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		want   string
		wantOK bool
	}{
		{"first H1", "# my skill\n\nbody", "my skill", true},
		{"H2 is not a title", "## sub\n\ntext", "", false},
		{"hash without space", "#x\n", "", false},
		{"hash and tab", "#\tx\n", "", false},
		{"leading whitespace allowed", "   # indented  \n", "indented", true},
		{"after other text", "intro\n\n# Later\n", "Later", true},
		{"first of several", "# one\n# two\n", "one", true},
		{"bare hash-space is empty", "# \nnext", "", true},
		{"CRLF", "# crlf title\r\nbody\r\n", "crlf title", true},
		{"inside a code block counts", "```\n# code\n```\n", "code", true},
		{"trailing spaces trimmed", "#  spaced   ", "spaced", true},
		{"no heading", "just text", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Title(tt.body)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("title(%q) = %q, %v; want %q, %v", tt.body, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestDescription(t *testing.T) {
	long := strings.Repeat("a", 200)
	tests := []struct {
		name   string
		body   string
		want   string
		wantOK bool
	}{
		{"first paragraph", "# t\n\nFirst para.\n\nSecond.", "First para.", true},
		{"skips subheadings", "# t\n## sub\n\ntext here\n", "text here", true},
		{"joins lines with single spaces", "# t\n\n  line one  \nline two\n\nnext", "line one line two", true},
		{"stops at a heading", "# t\nfirst\n# again\nmore", "first", true},
		{"heading-only doc", "# t\n\n## u\n", "", false},
		{"text before the H1", "lead text\n\n# Title\n\nbody", "lead text", true},
		{"list items are text", "# t\n\n- a\n- b\n", "- a - b", true},
		{"CRLF", "# t\r\n\r\ndesc line\r\nnext line\r\n", "desc line next line", true},
		{"empty", "", "", false},
		{"exactly 140 unchanged", strings.Repeat("b", 140), strings.Repeat("b", 140), true},
		{"141 cut", strings.Repeat("c", 141), strings.Repeat("c", 140) + "...", true},
		{"200 cut", long, long[:140] + "...", true},
		{"multibyte cut by characters", strings.Repeat("é", 150), strings.Repeat("é", 140) + "...", true},
		{"long multi-line", strings.Repeat("word ", 100) + "\n" + strings.Repeat("more ", 300), (strings.Repeat("word ", 28))[:140] + "...", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Description(tt.body)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("description(%q)\n got %q, %v\nwant %q, %v", tt.body, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestTruncateRunes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"héllo wörld", 5, "héllo..."},
		{"héllo", 5, "héllo"},
		{"abc", 5, "abc"},
		{"", 5, ""},
		{"日本語テキスト", 3, "日本語..."},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := TruncateRunes(tt.in, tt.n)
			if got != tt.want {
				t.Errorf("TruncateRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
	// The reference scenario: 5 characters plus "..." are 8 characters.
	if got := utf8.RuneCountInString(TruncateRunes("ééééééé", 5)); got != 8 {
		t.Errorf("rune count = %d, want 8", got)
	}
}
