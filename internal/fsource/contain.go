package fsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// scan is one listing call (Skills or Prompts): its context, the
// allow_paths directories with symbolic links resolved, and the skips
// found so far.
type scan struct {
	ctx      context.Context
	kind     string
	allow    []string // real paths of the allow_paths directories
	skips    []Skip
	reported map[string]bool   // reasons already recorded by the walks
	realDirs map[string]string // directory -> its real path ("" if none)
}

func (s *Source) newScan(ctx context.Context, kind string) *scan {
	s.containers.Store(nil) // reads resolve the roots afresh after a listing
	return &scan{
		ctx:      ctx,
		kind:     kind,
		allow:    s.realAllow(),
		reported: make(map[string]bool),
		realDirs: make(map[string]string),
	}
}

// skip records a walk's refusal once per listing, however many patterns
// run into it.
func (sc *scan) skip(path, reason string) {
	if sc.reported[reason] {
		return
	}
	sc.reported[reason] = true
	sc.skips = append(sc.skips, Skip{Kind: sc.kind, Path: path, Reason: reason})
}

// stopped records that the listing stopped early because its context
// ended.
func (sc *scan) stopped(pattern string, err error) {
	sc.skips = append(sc.skips, Skip{Kind: sc.kind, Path: pattern, Reason: "walk stopped: " + err.Error()})
}

// allowed reports whether a real path lies inside the real root or an
// allow_paths directory (docs/decisions.md D24).
func (sc *scan) allowed(real, realRoot string) bool {
	if within(realRoot, real) {
		return true
	}
	for _, dir := range sc.allow {
		if within(dir, real) {
			return true
		}
	}
	return false
}

// Contained reports whether the file at path, links resolved, lies inside
// one of the patterns' roots or an allow_paths directory: the check a
// read makes again when the file it was listed as has become a symbolic
// link since (docs/decisions.md D24).
func (s *Source) Contained(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	return s.containsReal(real)
}

// ErrEscaped is a listed file that, opened, lies outside its roots and
// allow_paths: it has become, or now passes through, a symbolic link
// leading out of them since it was listed.
var ErrEscaped = errors.New("the file now leads outside its root through a symbolic link; it is skipped until the next scan")

// openedInside checks that the file opened as path lies inside the roots
// or allow_paths. Where the system names an open file (Linux's
// /proc/self/fd), the name checked is the opened file's own, so no swap
// of a link or a directory between a check and the open can get past
// it. Elsewhere the name is resolved after the open and must lead to
// the same file as was opened.
func (s *Source) openedInside(path string, f *os.File) error {
	return checkOpened(path, f, s.containsReal)
}

// inside is openedInside for a listing: the file opened must lie inside
// the match's root or an allow_paths directory, as admit checked by name.
func (sc *scan) inside(realRoot string) openedCheck {
	return func(path string, f *os.File) error {
		return checkOpened(path, f, func(real string) bool { return sc.allowed(real, realRoot) })
	}
}

// checkOpened finds the real path of the file f, opened as path (the
// system's name for it, else its name resolved again), and refuses it
// with ErrEscaped unless allowed says it lies where it may.
func checkOpened(path string, f *os.File, allowed func(real string) bool) error {
	real, err := openedPath(f)
	if err != nil {
		if real, err = realByName(path, f); err != nil {
			return err
		}
	}
	if !allowed(real) {
		return ErrEscaped
	}
	return nil
}

// realByName is the real path that path leads to now, provided it leads
// to the file f that was opened: where an open file cannot be named, a
// change after the open is caught by comparing the two files. A name
// that leads nowhere now, or to another file, is errReplaced: the file
// changed while it was read (a deletion, an atomic save, or a swap).
func realByName(path string, f *os.File) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", errReplaced
	}
	opened, err1 := f.Stat()
	named, err2 := os.Stat(real)
	if err1 != nil || err2 != nil || !os.SameFile(opened, named) {
		return "", errReplaced
	}
	return real, nil
}

// errReplaced is a file that changed between its open and the check of
// what was opened; it reads as gone (fs.ErrNotExist), so callers look
// again.
var errReplaced = fmt.Errorf("the file was replaced while it was read; look again: %w", fs.ErrNotExist)

// containsReal reports whether a real path (links resolved) lies inside
// one of the patterns' roots or an allow_paths directory.
//
// The roots and allow_paths are resolved once and kept until the next
// listing: a read inside them as they were last resolved costs no more
// syscalls. A path outside them has them resolved again (a root reached
// through a link may have been pointed elsewhere) before it is refused.
// The kept paths only ever name directories that were the operator's
// roots or allow_paths.
func (s *Source) containsReal(real string) bool {
	if dirs := s.containers.Load(); dirs != nil && withinAny(*dirs, real) {
		return true
	}
	dirs := s.resolveContainers()
	s.containers.Store(&dirs)
	return withinAny(dirs, real)
}

// resolveContainers is the real paths of the roots (those that exist) and
// of the allow_paths directories (as given where they do not resolve).
func (s *Source) resolveContainers() []string {
	var dirs []string
	for _, root := range s.roots() {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			dirs = append(dirs, real)
		}
	}
	return append(dirs, s.realAllow()...)
}

// realAllow is the allow_paths directories with links resolved (as given
// where they do not resolve).
func (s *Source) realAllow() []string {
	allow := make([]string, 0, len(s.allow))
	for _, dir := range s.allow {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		allow = append(allow, dir)
	}
	return allow
}

func withinAny(dirs []string, p string) bool {
	for _, d := range dirs {
		if within(d, p) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies below it. Both are clean and
// absolute; an empty dir holds nothing.
func within(dir, p string) bool {
	switch {
	case dir == "":
		return false
	case p == dir:
		return true
	case strings.HasSuffix(dir, string(filepath.Separator)): // "/" or `C:\`
		return strings.HasPrefix(p, dir)
	default:
		return strings.HasPrefix(p, dir+string(filepath.Separator))
	}
}

// escapeReason is the skip reason of a path whose real path leaves its
// root: it names the link, its target and the key that allows it.
func escapeReason(path, real, root string) string {
	what := "symlink " + path + " points to " + real
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
		what = path + " resolves through a symbolic link to " + real
	}
	return fmt.Sprintf("%s, outside %s; add a parent directory of the target to allow_paths to serve it", what, root)
}

// errIgnored marks a match that is left out without a word: a directory
// a pattern matched, as in the reference.
var errIgnored = errors.New("a directory")

// statError is a match that could not be stat'ed (missing, a broken
// link, no permission); callers word its prefix ("stat: ", "read: ").
type statError struct{ err error }

func (e *statError) Error() string { return e.err.Error() }
func (e *statError) Unwrap() error { return e.err }

// admit checks one match before it is listed: it exists, it is a regular
// file, and its real path lies inside its root or an allow_paths
// directory. The error is errIgnored for a directory, a *statError, or a
// skip reason.
func (sc *scan) admit(m match) (fs.FileInfo, error) {
	fi, err := os.Stat(m.path)
	if err != nil {
		return nil, &statError{unwrapPath(err)}
	}
	if fi.IsDir() {
		return nil, errIgnored
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New(irregularReason(m.path, fi.Mode()))
	}
	real, err := sc.realPath(m.path)
	if err != nil {
		return nil, &statError{unwrapPath(err)}
	}
	if !sc.allowed(real, m.realRoot) {
		return nil, errors.New(escapeReason(m.path, real, m.root))
	}
	return fi, nil
}

// admitReason is the skip reason for an error of admit, with statPrefix
// before a stat error; "" for a match left out without a word.
func admitReason(statPrefix string, err error) string {
	if errors.Is(err, errIgnored) {
		return ""
	}
	if se, ok := errors.AsType[*statError](err); ok {
		return statPrefix + se.Error()
	}
	return err.Error()
}

// realPath is filepath.EvalSymlinks(p), with the real paths of
// directories cached for the listing: a file that is not itself a link
// costs one lstat.
func (sc *scan) realPath(p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return filepath.EvalSymlinks(p)
	}
	dir := filepath.Dir(p)
	real, ok := sc.realDirs[dir]
	if !ok {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			real = r
		}
		sc.realDirs[dir] = real
	}
	if real == "" {
		return filepath.EvalSymlinks(p)
	}
	return filepath.Join(real, filepath.Base(p)), nil
}

// irregularReason is the skip reason of a matched file that is neither a
// regular file nor a directory.
func irregularReason(path string, mode fs.FileMode) string {
	return path + " is " + describeIrregular(mode) + "; only regular files are served"
}

// describeIrregular names the kind of a file that is not regular.
func describeIrregular(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode.IsDir():
		return "a directory"
	default:
		return fmt.Sprintf("not a regular file (mode %s)", mode.Type())
	}
}
