package mcpskills

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// maxSkillURI bounds a skill:// URI, listed or asked for: 32 levels of
// 255-byte names, percent-encoded, fit.
const maxSkillURI = 32 << 10

// skillPath checks a skill:// URI and splits its path into segments,
// percent-decoded: a listed file's name is percent-encoded in its URI
// (fileURI), so every name a URI can carry reads back.
func skillPath(uri string) ([]string, error) {
	rest, ok := strings.CutPrefix(uri, SkillScheme)
	bad := func(why string) error {
		return contract.Invalidf("uri %s %s; allowed: skill://<id>/<file>, each segment percent-encoded, e.g. skill://pdf/SKILL.md", ids.Quote(uri), why)
	}
	switch {
	case !ok:
		return nil, bad("does not start with skill://")
	case len(uri) > maxSkillURI:
		return nil, bad(fmt.Sprintf("is longer than %d bytes", maxSkillURI))
	case strings.ContainsAny(rest, "\\?#") || strings.ContainsFunc(rest, isControl):
		return nil, bad("holds a backslash, ?, # or a control character")
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 2 {
		return nil, bad("names no file")
	}
	for i, raw := range segs {
		seg, err := url.PathUnescape(raw)
		if err != nil {
			return nil, bad("has a malformed percent-escape")
		}
		if !servableName(seg) {
			return nil, bad("has an empty, . or .. segment, or one that decodes to a /, a backslash, a control character or bytes that are not UTF-8")
		}
		segs[i] = seg
	}
	return segs, nil
}

func isControl(c rune) bool { return c < 0x20 || c == 0x7f }

// servableName reports whether a file or folder name can be a segment of
// a skill:// URI: anything but the empty name, . and .., and names with a
// /, a backslash (a separator on Windows), a control character or bytes
// that are not UTF-8. A file whose path has another name is not listed.
func servableName(seg string) bool {
	return seg != "" && seg != "." && seg != ".." && utf8.ValidString(seg) &&
		!strings.ContainsAny(seg, "/\\") && !strings.ContainsFunc(seg, isControl)
}

// fileURI is the skill:// URI of a file of skill id, each segment of its
// path percent-encoded; ok is false when the path has a name no URI
// carries, or the URI would be too long to read back.
func fileURI(id, rel string) (uri string, ok bool) {
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		if !servableName(seg) {
			return "", false
		}
		segs[i] = url.PathEscape(seg)
	}
	uri = SkillScheme + id + "/" + strings.Join(segs, "/")
	return uri, len(uri) <= maxSkillURI
}
