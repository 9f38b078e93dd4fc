package skillmd

import (
	"strings"
	"unicode"
)

// MaxDescriptionRunes caps an index description (docs/decisions.md D1): longer
// first paragraphs are cut to this many characters plus "...".
const MaxDescriptionRunes = 140

// nextLine returns the line at the start of s (without its "\n" and a
// trailing "\r") and the text after it; more is false at the end of s.
// It walks s in place, so title and description allocate nothing for the
// common single-line cases.
func nextLine(s string) (line, rest string, more bool) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		line, rest = s, ""
	} else {
		line, rest, more = s[:i], s[i+1:], true
	}
	line = strings.TrimSuffix(line, "\r")
	return line, rest, more
}

// title returns the first "# " heading of body (docs/reference.md
// #title-and-description): leading whitespace before the hash is allowed, "##", "#x" and
// "#\tx" are not headings, and a bare "# " gives an empty title. ok is
// false when body has no such line.
func Title(body string) (t string, ok bool) {
	for rest, more := body, true; more; {
		var line string
		line, rest, more = nextLine(rest)
		if h, found := strings.CutPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "# "); found {
			return strings.TrimSpace(h), true
		}
	}
	return "", false
}

// TitleOr returns body's title, or fallback when it has none.
func TitleOr(body, fallback string) string {
	if t, ok := Title(body); ok {
		return t
	}
	return fallback
}

// description returns the first paragraph of body that is not a heading
// (docs/reference.md#title-and-description): consecutive non-blank lines that do not
// start with '#', trimmed and joined by single spaces, cut to 140
// characters plus "..." when longer (docs/decisions.md D1). ok is false when there
// is no such paragraph.
func Description(body string) (d string, ok bool) {
	d, cut, ok := FirstParagraph(body)
	if cut {
		d += Ellipsis
	}
	return d, ok
}

// Ellipsis marks a cut description.
const Ellipsis = "..."

// FirstParagraph is description without the Ellipsis: the paragraph's
// first 140 characters and whether it was longer. The index writes the
// Ellipsis itself, so a cut paragraph costs no allocation.
func FirstParagraph(body string) (d string, cut, ok bool) {
	var joined strings.Builder // used only for multi-line paragraphs
	lines := 0
	for rest, more := body, true; more; {
		var line string
		line, rest, more = nextLine(rest)
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			if lines > 0 {
				break
			}
			continue
		}
		if lines == 0 {
			d = line
		} else {
			if lines == 1 {
				joined.WriteString(d)
			}
			joined.WriteByte(' ')
			joined.WriteString(line)
			d = ""
		}
		lines++
		// Each character takes at most 4 bytes, so past this size the
		// text is certainly cut and later lines cannot change the result.
		if len(d)+joined.Len() > 4*MaxDescriptionRunes {
			break
		}
	}
	if lines == 0 {
		return "", false, false
	}
	if lines > 1 {
		d = joined.String()
	}
	d, cut = CutRunes(d, MaxDescriptionRunes)
	return d, cut, true
}

// TruncateRunes keeps the first n characters of s and appends "..." when s
// is longer; a string of exactly n characters is returned unchanged.
func TruncateRunes(s string, n int) string {
	if prefix, cut := CutRunes(s, n); cut {
		return prefix + Ellipsis
	}
	return s
}

// CutRunes returns the first n characters of s and whether s was longer.
// Each invalid UTF-8 byte counts as one character.
func CutRunes(s string, n int) (prefix string, cut bool) {
	if len(s) <= n {
		return s, false // at most n bytes, so at most n characters
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i], true
		}
		count++
	}
	return s, false
}
