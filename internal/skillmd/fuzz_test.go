package skillmd

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzTitleDescription(f *testing.F) {
	for _, s := range []string{
		"# t\n\nbody", "", "#", "# ", "  # x\r\n", "a\nb\n\nc", strings.Repeat("é", 200),
		"# t\n\n" + strings.Repeat("word ", 100), "\xff\xfe# x", "#\tx\n# y", "\r\r\n# a\rb",
		strings.Repeat("x\n", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		title, hasTitle := Title(body)
		if strings.Contains(title, "\n") {
			t.Fatalf("title(%q) = %q contains a newline", body, title)
		}
		if hasTitle && !strings.Contains(body, title) {
			t.Fatalf("title(%q) = %q is not taken from the body", body, title)
		}
		if !hasTitle && title != "" {
			t.Fatalf("title(%q) = %q without a heading", body, title)
		}

		desc, hasDesc := Description(body)
		if n := utf8.RuneCountInString(desc); n > MaxDescriptionRunes+len(Ellipsis) {
			t.Fatalf("description(%q) has %d characters", body, n)
		}
		if strings.Contains(desc, "\n") {
			t.Fatalf("description(%q) = %q contains a newline", body, desc)
		}
		if hasDesc == (desc == "") {
			t.Fatalf("description(%q) = %q, %v", body, desc, hasDesc)
		}
		para, cut, ok := FirstParagraph(body)
		if ok != hasDesc || (cut && desc != para+Ellipsis) || (!cut && desc != para) {
			t.Fatalf("firstParagraph(%q) = %q, %v, %v disagrees with description %q", body, para, cut, ok, desc)
		}
		if cut && utf8.RuneCountInString(para) != MaxDescriptionRunes {
			t.Fatalf("a cut paragraph has %d characters", utf8.RuneCountInString(para))
		}

	})
}
