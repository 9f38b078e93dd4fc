package fsource

import (
	"fmt"
	"path/filepath"
	"strings"
)

// staticPrefix returns the directory part of a pattern that contains no
// glob syntax: the text before the first '*', '?', '[' or '{', cut back to
// and including the last '/'. It is "" when that text has no '/'. The
// pattern uses '/' separators.
//
//	/abs/dir/**/*.md -> /abs/dir/
//	/abs/file.md     -> /abs/
//	*.md             -> ""
func staticPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, "*?[{"); i >= 0 {
		pattern = pattern[:i]
	}
	return pattern[:strings.LastIndexByte(pattern, '/')+1]
}

// deriveID turns a matched path into an id: the path minus the pattern's
// static prefix, minus a trailing ".md", with '\' turned into '/'. The
// result is not validated here.
func deriveID(prefix, path string) (string, error) {
	rel, ok := strings.CutPrefix(filepath.ToSlash(path), prefix)
	if !ok {
		// Only reachable when the prefix holds '\' escapes that the glob
		// resolved, e.g. `a\b/*.md` matching ab/x.md: an id would be a guess.
		return "", fmt.Errorf("cannot derive an id: %s is not under the pattern's static prefix %s (avoid '\\' escapes before the first wildcard)", path, prefix)
	}
	rel = strings.TrimSuffix(rel, ".md")
	return strings.ReplaceAll(rel, `\`, "/"), nil
}

// lastSegment returns the part of an id after its last '/'.
func lastSegment(id string) string {
	return id[strings.LastIndexByte(id, '/')+1:]
}
