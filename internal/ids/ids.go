// Package ids validates skill ids, prompt names and URI segments with the
// exact error texts of the reference worker, so that agents and tests that
// match on them keep working.
package ids

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Limits on identifiers.
const (
	MaxIDBytes      = 1024 // a whole skill id
	MaxSegmentBytes = 64   // one '/'-separated segment of a skill id
	MaxNameBytes    = 64   // a prompt name
)

// ReservedFirstSegment is the first segment that marks iii://fn/ section URIs.
const ReservedFirstSegment = "fn"

// ValidateSegment checks one segment: 1–64 bytes of [a-z0-9_-].
func ValidateSegment(seg string) error {
	if seg == "" {
		return errors.New("segment must be non-empty")
	}
	if len(seg) > MaxSegmentBytes {
		return fmt.Errorf("segment too long (%d chars; max %d): %s", len(seg), MaxSegmentBytes, Quote(seg))
	}
	if !allowed(seg) {
		return fmt.Errorf("segment may only contain lowercase ASCII letters, digits, '-' and '_': %s", Quote(seg))
	}
	return nil
}

// ValidateSkillID checks a skill id: one or more valid segments joined by
// '/', at most 1024 bytes, whose first segment is not "fn".
func ValidateSkillID(id string) error {
	if id == "" {
		return errors.New("id must be non-empty")
	}
	if strings.HasPrefix(id, "/") || strings.HasSuffix(id, "/") {
		return fmt.Errorf("id may not have a leading or trailing '/': %s", Quote(id))
	}
	if len(id) > MaxIDBytes {
		return fmt.Errorf("id too long (%d chars; max %d): %s", len(id), MaxIDBytes, Quote(id))
	}
	rest := id
	for i := 1; ; i++ {
		seg, tail, more := strings.Cut(rest, "/")
		if err := ValidateSegment(seg); err != nil {
			return fmt.Errorf("invalid id (segment %d of %s): %w", i, Quote(id), err)
		}
		if !more {
			break
		}
		rest = tail
	}
	if first, _, _ := strings.Cut(id, "/"); first == ReservedFirstSegment {
		return fmt.Errorf("id may not have %q as its first segment (reserved as the iii://fn/ section-URI marker): %s", ReservedFirstSegment, Quote(id))
	}
	return nil
}

// ValidatePromptName checks a prompt name: 1–64 bytes of [a-z0-9_-].
func ValidatePromptName(name string) error {
	if name == "" {
		return errors.New("name must be non-empty")
	}
	if len(name) > MaxNameBytes {
		return fmt.Errorf("name too long (%d chars; max %d)", len(name), MaxNameBytes)
	}
	if !allowed(name) {
		return fmt.Errorf("name may only contain lowercase ASCII letters, digits, '-' and '_': %s", Quote(name))
	}
	return nil
}

// MaxQuotedChars is how many characters of caller input an error or log
// line quotes at most (docs/decisions.md D27).
const MaxQuotedChars = 200

// Quote renders a value the way the reference worker's messages do (Rust's
// {:?} for str, DebugString). Input longer than MaxQuotedChars characters
// is cut there and followed by "… (N bytes)", so a hostile 10 MB value
// never comes back whole (D27).
func Quote(s string) string {
	cut, total := Clip(s), len(s)
	var b strings.Builder
	b.Grow(len(cut) + 2)
	writeDebug(&b, cut)
	if len(cut) < total {
		fmt.Fprintf(&b, "… (%d bytes)", total)
	}
	return b.String()
}

// DebugString renders s whole as Rust's {:?} renders a str: in double
// quotes, with '"' and '\\' escaped, \0 \t \n \r as such, and every
// other character that is not printable (control, format, private-use,
// unassigned, separators other than ' ') or that is a combining grapheme
// extender written as \u{hex}. The local engine quotes values so where the
// engine's messages do; the worker's own messages use Quote.
func DebugString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	writeDebug(&b, s)
	return b.String()
}

// writeDebug writes s to b as DebugString renders it.
func writeDebug(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == 0:
			b.WriteString(`\0`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= 0x20 && r < 0x7f:
			b.WriteByte(byte(r)) // printable ASCII, the common case
		case !unicode.IsPrint(r) || isGraphemeExtend(r):
			b.WriteString(`\u{` + strconv.FormatInt(int64(r), 16) + `}`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// Clip returns s cut to its first MaxQuotedChars characters, for messages
// that embed caller input without quotes; Quote uses it and says how long
// the input was. Callers that print the clipped text unquoted should add
// the length themselves when it was cut (see Unquoted).
func Clip(s string) string {
	if len(s) <= MaxQuotedChars {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxQuotedChars {
			return s[:i]
		}
		n++
	}
	return s
}

// Unquoted renders caller input embedded in a message without quotes, as
// the reference worker's "Skill not found: x" does: whole when short,
// otherwise clipped and followed by "… (N bytes)" (D27).
func Unquoted(s string) string {
	if cut := Clip(s); len(cut) < len(s) {
		return fmt.Sprintf("%s… (%d bytes)", cut, len(s))
	}
	return s
}

// isGraphemeExtend reports the Unicode Grapheme_Extend property: Mn, Me and
// Other_Grapheme_Extend. Rust escapes these in debug strings because they
// would otherwise combine with the opening quote or previous character.
func isGraphemeExtend(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Other_Grapheme_Extend)
}

func allowed(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
