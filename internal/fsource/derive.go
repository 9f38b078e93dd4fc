package fsource

import (
	"fmt"
	"path/filepath"
	"strings"
)

// staticPrefix returns the directory part of a pattern that contains no
// glob syntax: the text before the first '*', '?', '[' or '{', cut back to
// and including the last '/', with doublestar's '\' escapes removed; ""
// when that text has no '/'. The pattern uses '/' separators.
//
//	/abs/dir/**/*.md -> /abs/dir/
//	/abs/file.md     -> /abs/
//	/abs/\[x]/*.md   -> /abs/[x]/
//	*.md             -> ""
func staticPrefix(pattern string) string {
	var (
		b   strings.Builder
		cut int // length of b up to and including the last '/'
	)
scan:
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*', '?', '[', '{':
			break scan
		case '\\':
			if i+1 < len(pattern) {
				i++
				b.WriteByte(pattern[i])
				if pattern[i] == '/' {
					cut = b.Len()
				}
			}
		case '/':
			b.WriteByte(c)
			cut = b.Len()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()[:cut]
}

// deriveID turns a matched path into an id: the path minus the pattern's
// static prefix, minus a trailing ".md", with '\' turned into '/'. The
// result is not validated here.
func deriveID(prefix, path string) (string, error) {
	rel, ok := strings.CutPrefix(filepath.ToSlash(path), prefix)
	if !ok {
		// Not reachable with doublestar's matches; never guess an id.
		return "", fmt.Errorf("cannot derive an id: %s is not under the pattern's static prefix %s", path, prefix)
	}
	rel = strings.TrimSuffix(rel, ".md")
	return strings.ReplaceAll(rel, `\`, "/"), nil
}

// lastSegment returns the part of an id after its last '/'.
func lastSegment(id string) string {
	return id[strings.LastIndexByte(id, '/')+1:]
}
