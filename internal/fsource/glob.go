package fsource

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/iii-hq/skills-go/internal/ids"
)

// match is one path a pattern produced, before it is stat'ed or read.
type match struct {
	path     string // absolute, with the OS separator
	prefix   string // static prefix of the pattern that produced it, with '/'
	root     string // that prefix as an OS path: the pattern's root (D24)
	realRoot string // root with symbolic links resolved
}

// expand runs the patterns in order. It returns every match in pattern
// order and then sorted path order, and a Skip for each invalid pattern.
// A file two patterns match comes back twice, with each pattern's prefix:
// as in the reference, each pattern's matches are validated on their own,
// so a file whose id is invalid under one pattern can still load under
// another; the callers drop a repeat of the same id from the same file
// silently. Directories are not filtered here.
//
// The walks' refusals (links leaving the root, loops, depth, max_files)
// are recorded in sc. If sc's context ends, expand stops, records why and
// returns false.
func (s *Source) expand(sc *scan, patterns []string) ([]match, bool) {
	var out []match
	for _, pattern := range patterns {
		if err := sc.ctx.Err(); err != nil {
			sc.stopped(pattern, err)
			return out, false
		}
		abs := s.absPattern(pattern)
		w := newWalk(sc, pattern, s.maxFiles)
		paths, err := glob(w, abs)
		if err != nil {
			sc.skips = append(sc.skips, Skip{
				Kind:   sc.kind,
				Path:   pattern,
				Reason: fmt.Sprintf("invalid glob %s: %v", ids.Quote(pattern), err),
			})
			continue
		}
		prefix := staticPrefix(filepath.ToSlash(abs))
		for _, p := range paths {
			out = append(out, match{path: p, prefix: prefix, root: w.root, realRoot: w.realRoot})
		}
		switch {
		case errors.Is(w.stop, errCapped):
			sc.skips = append(sc.skips, Skip{
				Kind: sc.kind,
				Path: pattern,
				Reason: fmt.Sprintf("walk stopped after %d directory entries (max_files); "+
					"the files after them are not listed: narrow the pattern or raise max_files", s.maxFiles),
			})
		case w.stop != nil:
			sc.stopped(pattern, w.stop)
			return out, false
		}
	}
	return out, true
}

// absPattern joins a relative pattern to the base and cleans it, as
// walk.glob will, so that the static prefix is computed on
// the same text the matches are built from. The base is a directory, not
// a pattern: its glob characters are escaped, so a base such as
// /home/me/[work] matches itself. (Windows has no escape character, as
// '\' is its separator; there a base with glob characters stays a pattern.)
func (s *Source) absPattern(pattern string) string {
	if filepath.IsAbs(pattern) {
		return filepath.Clean(pattern)
	}
	return filepath.Join(escapeMeta(s.base), pattern)
}

// escapeMeta escapes the characters doublestar gives a meaning to.
func escapeMeta(dir string) string {
	if filepath.Separator == '\\' {
		return dir
	}
	var b strings.Builder
	for _, r := range dir {
		if strings.ContainsRune(`\*?[]{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// glob expands one absolute pattern into matching paths (files and
// directories) in sorted path order, walking with w (see walk). I/O errors
// while walking are ignored, as by the reference: an unreadable directory
// contributes nothing.
func glob(w *walk, abs string) ([]string, error) {
	if err := checkPattern(filepath.ToSlash(abs)); err != nil {
		return nil, err
	}
	paths, err := w.glob(abs)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(paths, comparePaths)
	return slices.Compact(paths), nil
}

// comparePaths orders paths component by component, like the reference's
// glob crate: "a/x" sorts before "a-b" because the component "a" sorts
// before "a-b". That is byte order with the separator ranked lowest.
func comparePaths(a, b string) int {
	a, b = filepath.ToSlash(a), filepath.ToSlash(b)
	for i := 0; i < min(len(a), len(b)); i++ {
		ca, cb := a[i], b[i]
		switch {
		case ca == cb:
			continue
		case ca == '/':
			return -1
		case cb == '/':
			return 1
		}
		return cmp.Compare(ca, cb)
	}
	return cmp.Compare(len(a), len(b))
}

// checkPattern reports what is wrong with a pattern doublestar rejects.
// doublestar only says "syntax error in pattern"; users need to know
// which bracket to fix.
func checkPattern(p string) error {
	if doublestar.ValidatePattern(p) {
		return nil
	}
	var alts []int // positions of unclosed '{'
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 >= len(p) {
				return errors.New(`pattern ends with an unfinished '\' escape`)
			}
			i++
		case '[':
			if err := checkClass(p, i); err != nil {
				return err
			}
			i = classEnd(p, i)
		case '{':
			alts = append(alts, i)
		case '}':
			if len(alts) == 0 {
				return fmt.Errorf("'}' at %q has no matching '{'", p[i:])
			}
			alts = alts[:len(alts)-1]
		}
	}
	if len(alts) > 0 {
		return fmt.Errorf("'{' at %q is never closed by '}'", p[alts[0]:])
	}
	return errors.New("syntax error in pattern")
}

// checkClass checks the character class opening at p[start] == '['.
func checkClass(p string, start int) error {
	i := start + 1
	if i < len(p) && (p[i] == '^' || p[i] == '!') {
		i++
	}
	if i < len(p) && p[i] == ']' {
		return fmt.Errorf("empty character class at %q (list at least one character between '[' and ']')", p[start:])
	}
	if classEnd(p, start) >= len(p) {
		return fmt.Errorf("'[' at %q is never closed by ']'", p[start:])
	}
	return nil
}

// classEnd returns the index of the ']' closing the class that opens at
// p[start], or len(p) when there is none.
func classEnd(p string, start int) int {
	i := start + 1
	if i < len(p) && (p[i] == '^' || p[i] == '!') {
		i++
	}
	for ; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return len(p)
}
