package lint

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The hidden-Unicode rules (docs/decisions.md D65): a code point an agent
// reads but a person reviewing the file does not see. Each is judged by
// its class, not by a list of known attacks.

// hiddenClass is the rule that flags r, or "".
func hiddenClass(r rune) string {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F, 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
		return RuleBidi
	case 0xE0000 <= r && r <= 0xE007F:
		return RuleTag
	case 0xE000 <= r && r <= 0xF8FF, 0xF0000 <= r && r <= 0x10FFFF:
		return RulePrivateUse
	case r == 0x2028, r == 0x2029, r < 0x20 && r != '\t' && r != '\n' && r != '\r', 0x7F <= r && r <= 0x9F:
		return RuleControl
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, 0xE0100 <= r && r <= 0xE01EF,
		unicode.Is(unicode.Cf, r):
		return RuleInvisible
	}
	return ""
}

// allowedHidden are the format characters real text uses visibly: the
// zero-width joiner inside an emoji sequence and the soft hyphen (a
// hyphenation hint). U+FEFF is allowed only as the text's first rune
// (a byte-order mark); that case is decided by the caller.
func allowedHidden(r rune, prev, next rune) bool {
	switch r {
	case 0x00AD:
		return true
	case 0x200D: // ZWJ: between two pictographs (👩‍💻), not between letters
		return pictographic(prev) && pictographic(next)
	}
	return false
}

// pictographic approximates Extended_Pictographic: the emoji blocks, the
// symbols emoji sequences join, and the variation selector that ends an
// emoji presentation.
func pictographic(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r == 0xFE0F || r >= 0x2190 && r <= 0x21FF || r >= 0x2B00 && r <= 0x2BFF
}

// hidden runs the Unicode rules over one line: one finding per rule per
// line, naming the distinct code points (at most five, then "…").
func (c *checker) hidden(s string, n int, first bool) {
	var found map[string][]rune
	prev := rune(0)
	for i := 0; i < len(s); {
		if len(s)-i >= 8 && printableASCII(s[i:i+8]) {
			// Eight bytes no rule flags, as most of any text is: skipped
			// a word at a time (docs/decisions.md D77).
			prev = rune(s[i+7])
			i += 8
			continue
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b < 0x20 && b != '\t' && b != '\r' || b == 0x7F {
				found = note(found, RuleControl, rune(b))
			}
			prev = rune(b)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if rule := hiddenClass(r); rule != "" && !(r == 0xFEFF && first && i == 0) {
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			if !allowedHidden(r, prev, next) {
				found = note(found, rule, r)
			}
		}
		prev = r
		i += size
	}
	if found == nil {
		return
	}
	for _, rule := range []string{RuleBidi, RuleInvisible, RuleTag, RulePrivateUse, RuleControl} {
		if rs := found[rule]; len(rs) > 0 {
			c.report.add(Finding{Rule: rule, Line: n, Detail: codePoints(rs)})
		}
	}
}

func note(found map[string][]rune, rule string, r rune) map[string][]rune {
	if found == nil {
		found = map[string][]rune{}
	}
	for _, seen := range found[rule] {
		if seen == r {
			return found
		}
	}
	found[rule] = append(found[rule], r)
	return found
}

// codePoints names runes as U+XXXX, with a name for the common ones.
func codePoints(rs []rune) string {
	var parts []string
	for i, r := range rs {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("… (%d distinct)", len(rs)))
			break
		}
		p := fmt.Sprintf("U+%04X", r)
		if name := runeNames[r]; name != "" {
			p += " " + name
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

var runeNames = map[rune]string{
	0x061C: "ARABIC LETTER MARK", 0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER",
	0x200D: "ZERO WIDTH JOINER", 0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
	0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE", 0x2060: "WORD JOINER",
	0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0x2028: "LINE SEPARATOR",
	0x2029: "PARAGRAPH SEPARATOR", 0x001B: "ESCAPE",
}

// visible reports whether an excerpt may show r as it is.
func visible(r rune) bool {
	return r == ' ' || r == '\t' || (hiddenClass(r) == "" && unicode.IsPrint(r))
}

// Masks for printableASCII: a byte in every lane of a word.
const (
	lanes01 = 0x0101010101010101
	lanes20 = 0x2020202020202020
	lanes7F = 0x7F7F7F7F7F7F7F7F
	lanes80 = 0x8080808080808080
)

// printableASCII reports whether the 8 bytes of s are all in 0x20–0x7E,
// none of which a hidden-Unicode rule flags, with the usual word tricks:
// no byte has its top bit, none is below 0x20 (subtracting 0x20 from it
// borrows), none is 0x7F (it is zero once XORed with 0x7F).
func printableASCII(s string) bool {
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	if w&lanes80 != 0 {
		return false
	}
	del := w ^ lanes7F
	return (w-lanes20)&^w&lanes80 == 0 && (del-lanes01)&^del&lanes80 == 0
}
