// Package links is the one rule by which a link written in a skill's
// markdown names another document of the registry (docs/decisions.md
// D70). Agent Skills link their files relatively (references/forms.md,
// ./scripts/fill.py, ../sibling/SKILL.md, {baseDir}/references/x.md,
// forms.md#fields), while a skill's id sits in the authority of its
// iii:// or skill:// URI, where standard URL resolution can never leave
// it. So links are resolved here on the path below the registry root,
// the same way for both schemes:
//
//   - the fragment (#…) is dropped: a link reaches the whole document;
//   - a leading {baseDir} stands for the folder of the skill that holds
//     the link (Claude's placeholder), anywhere else for the folder
//     written before it;
//   - "." segments are dropped, ".." goes up one folder, never above the
//     registry root;
//   - a trailing "/" names a folder, which is read as its SKILL.md.
//
// Nothing here reads a file: the result is a path that the registry then
// looks up among the ids it serves, so no link can read outside the
// configured roots. Percent-escapes of a separator, a dot or NUL, a
// backslash, control characters and overlong names are refused.
package links

import (
	"errors"
	"fmt"
	"strings"
)

// BaseDir is Claude's placeholder for the folder of the skill that holds
// a link ({baseDir}/references/x.md).
const BaseDir = "{baseDir}"

// SkillFile is the file a folder is read as.
const SkillFile = "SKILL.md"

// Limits on what a link may name: a file name as long as file systems
// allow one, and a whole path well past any served id.
const (
	MaxNameBytes = 255
	MaxPathBytes = 4096
)

// ErrLeavesRoot is the error of a link whose ".." would go above the
// registry root.
var ErrLeavesRoot = errors.New("its .. goes above the registry root")

// ErrNoBase is the error of a {baseDir} that nothing says the meaning of:
// a URI that starts with it, read without the document that held it.
var ErrNoBase = errors.New("it starts with {baseDir}, which stands for the folder of the skill whose document holds the link; follow it with that document as the base, or write the skill's URI in its place")

// Target is what a link names: a path below the registry root, with no
// empty, ".", ".." or {baseDir} segment ("" is the root itself), and
// whether it was written as a folder.
type Target struct {
	Path   string
	Folder bool
}

// IIIKey is the iii:// key of t: a folder or a folder's SKILL.md is the
// folder's skill (iii://pdf), any other file keeps its path as written
// (iii://pdf/references/forms.md).
func (t Target) IIIKey() string {
	if t.Folder {
		return t.Path
	}
	if t.Path == SkillFile {
		return ""
	}
	return strings.TrimSuffix(t.Path, "/"+SkillFile)
}

// FilePath is the skill:// path of t, which always names a file: a
// folder is its SKILL.md.
func (t Target) FilePath() string {
	switch {
	case !t.Folder:
		return t.Path
	case t.Path == "":
		return SkillFile
	}
	return t.Path + "/" + SkillFile
}

// Doc is the document a link is written in, as paths below the registry
// root ("" is the root).
type Doc struct {
	// Path is the document's own path: a skill's id, or a file's path.
	Path string
	// Folder is true for a skill's own document (a SKILL.md, read as its
	// folder, or a registered body): its links are relative to Path. Any
	// other file's links are relative to the folder that holds it.
	Folder bool
	// SkillDir is the folder of the skill the document belongs to, which
	// a leading {baseDir} stands for.
	SkillDir string
}

// Resolve resolves link, written in d, to the path it names. A link with
// a scheme (iii://, http:, mailto:) is not relative: HasScheme tells
// callers to take it as it is. A link that is only a fragment (#usage)
// names d itself. A link that starts with "/" is refused: it would mean
// the registry root to one reader and the skill folder to another.
func (d Doc) Resolve(link string) (Target, error) {
	if err := checkPath(link); err != nil {
		return Target{}, err
	}
	path, _ := CutFragment(link)
	switch {
	case path == "":
		return Target{Path: d.Path, Folder: d.Folder}, nil
	case strings.HasPrefix(path, "/"):
		return Target{}, errors.New("it starts with /; write it relative to the document, or as a full iii:// URI")
	}
	dir := split(d.Path)
	if !d.Folder && len(dir) > 0 {
		dir = dir[:len(dir)-1]
	}
	return walk(dir, split(d.SkillDir), path)
}

// Clean normalises the path of a URI that was written by joining a link
// to a document's folder (iii://pdf/./references/x.md,
// iii://team/a/../b/SKILL.md, iii://pdf/{baseDir}/scripts/x.py,
// iii://pdf/forms.md#fields), as Resolve would have resolved the link.
// A {baseDir} inside it stands for the folder before it; one at its start
// is ErrNoBase.
func Clean(uriPath string) (Target, error) {
	if err := checkPath(uriPath); err != nil {
		return Target{}, err
	}
	path, _ := CutFragment(uriPath)
	if path == BaseDir || strings.HasPrefix(path, BaseDir+"/") {
		return Target{}, ErrNoBase
	}
	return walk(nil, nil, path)
}

// NeedsCleaning reports whether the path of a URI holds a form that only
// a link has, and so is resolved by Clean rather than read as an id: a
// ".", ".." or {baseDir} segment, a fragment, or a percent-escape of a
// separator, a dot or NUL (which Clean refuses). No id has any of these.
func NeedsCleaning(uriPath string) bool {
	if !strings.ContainsAny(uriPath, ".#{%") {
		return false // a plain id, as nearly every read names
	}
	if strings.ContainsRune(uriPath, '#') || hasTrickEscape(uriPath) {
		return true
	}
	for seg := range strings.SplitSeq(uriPath, "/") {
		if seg == "." || seg == ".." || seg == BaseDir {
			return true
		}
	}
	return false
}

// HasScheme reports whether link starts with a URI scheme (RFC 3986: a
// letter, then letters, digits, "+", "-" or ".", then ":"), as iii://,
// skill://, https: and mailto: links do; such a link is not relative.
func HasScheme(link string) bool {
	for i := 0; i < len(link); i++ {
		c := link[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// CutFragment splits s at its first '#'.
func CutFragment(s string) (path, fragment string) {
	path, fragment, _ = strings.Cut(s, "#")
	return path, fragment
}

// walk applies path's segments to the folder stack: "." stays, ".." goes
// up, {baseDir} goes to skillDir (or, when skillDir is nil, stays where
// it is), a name goes down. A trailing "/" makes the target a folder.
func walk(stack, skillDir []string, path string) (Target, error) {
	segs := strings.Split(path, "/")
	folder := false
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case "":
			if !last {
				return Target{}, errors.New("it has an empty segment (a doubled /)")
			}
			folder = true
		case ".":
			folder = last
		case "..":
			if len(stack) == 0 {
				return Target{}, ErrLeavesRoot
			}
			stack = stack[:len(stack)-1]
			folder = last
		case BaseDir:
			if skillDir != nil {
				stack = append(stack[:0:0], skillDir...)
			}
			folder = last
		default:
			stack = append(stack, seg)
		}
	}
	return Target{Path: strings.Join(stack, "/"), Folder: folder || len(stack) == 0}, nil
}

// split is a folder path's segments; "" is the root.
func split(dir string) []string {
	if dir == "" {
		return []string{}
	}
	return strings.Split(dir, "/")
}

// checkPath refuses what no served name holds and what would be a path
// trick to a reader that decodes or joins it.
func checkPath(s string) error {
	switch {
	case len(s) > MaxPathBytes:
		return fmt.Errorf("it is %d bytes long; at most %d are allowed", len(s), MaxPathBytes)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errors.New("it holds NUL or another control character")
	case strings.ContainsRune(s, '\\'):
		return errors.New("it holds a backslash; links use /")
	case hasTrickEscape(s):
		return errors.New("it holds a percent-encoded /, \\, . or NUL (%2F, %5C, %2E, %00); write them as they are, or not at all")
	}
	for seg := range strings.SplitSeq(s, "/") {
		if len(seg) > MaxNameBytes {
			return fmt.Errorf("a segment is %d bytes long; names have at most %d", len(seg), MaxNameBytes)
		}
	}
	return nil
}

// hasTrickEscape reports a percent-escape of '/', '\', '.' or NUL, any
// case: a reader that decoded it would see a separator or a dot segment.
func hasTrickEscape(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		switch strings.ToUpper(s[i+1 : i+3]) {
		case "2F", "5C", "2E", "00":
			return true
		}
	}
	return false
}
