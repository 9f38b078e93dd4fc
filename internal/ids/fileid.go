package ids

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// The one rule for the id of a file under a root (docs/decisions.md D69).
// A file of an Agent Skills folder is named by its path below the root,
// '/'-separated and as written (case, extension and all):
//
//	<folder>/SKILL.md              → <folder>                  (the skill, D30)
//	<folder>/references/forms.md   → <folder>/references/forms (a markdown file whose path without
//	                                                            ".md" is a skill id keeps that id, D30)
//	<folder>/references/API.md     → <folder>/references/API.md (every other file: its path as written)
//	<folder>/scripts/fill_form.py  → <folder>/scripts/fill_form.py
//
// FileID applied to an id gives the id back (ids are the rule's fixed
// points), so a read may name a file by its id or by its path: a reader
// looks the key up, and else FileID(key). Two files onto one id (forms.md
// and forms.MD, or a file "forms" beside "forms.md") are a Collision: both
// are reported and neither is served (Assign).

// MaxFileSegmentBytes is the longest segment of a file id: the longest
// file name the common file systems allow.
const MaxFileSegmentBytes = 255

// MaxFileDepth bounds how many segments a file id has.
const MaxFileDepth = 64

// FileID is the id of the file at rel, its '/'-separated path below a
// root: the folder's id for a SKILL.md (its name matched without regard
// to case), the path without ".md" for a markdown file when that is a
// valid skill id, else rel as written. rel must pass ValidateFilePath; a
// SKILL.md directly in the root has no folder to name it and is an error.
func FileID(rel string) (string, error) {
	if err := ValidateFilePath(rel); err != nil {
		return "", err
	}
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if strings.EqualFold(base, "SKILL.md") {
		if dir == "" {
			return "", fmt.Errorf("a SKILL.md directly in a root has no folder to name it: %s", Quote(rel))
		}
		if ValidateSkillID(dir) != nil {
			return "", fmt.Errorf("the folder of %s is not a skill id: %w", Quote(rel), ValidateSkillID(dir))
		}
		return dir, nil
	}
	if IsMarkdown(base) {
		if short := rel[:len(rel)-len(".md")]; ValidateSkillID(short) == nil {
			return short, nil
		}
	}
	return rel, nil
}

// IsMarkdown reports whether a file name ends in ".md", in any case.
func IsMarkdown(name string) bool {
	return len(name) > len(".md") && strings.EqualFold(name[len(name)-len(".md"):], ".md")
}

// ValidateFilePath checks a file's path below a root as an id: 1 to 1024
// bytes of UTF-8 in at most 64 '/'-separated segments, none empty, "."
// or "..", none starting with '.', longer than 255 bytes, or holding a
// control character, '\\', '%' or '#' (an iii:// URI could not carry
// them as written: '#' starts a fragment, '%' an escape), the first not
// "fn" (iii://fn/ is a section URI).
func ValidateFilePath(rel string) error {
	switch {
	case rel == "":
		return errors.New("path must be non-empty")
	case len(rel) > MaxIDBytes:
		return fmt.Errorf("path too long (%d bytes; max %d): %s", len(rel), MaxIDBytes, Quote(rel))
	case !utf8.ValidString(rel):
		return fmt.Errorf("path is not UTF-8: %s", Quote(rel))
	case strings.Count(rel, "/") >= MaxFileDepth:
		return fmt.Errorf("path has more than %d segments: %s", MaxFileDepth, Quote(rel))
	}
	for i, seg := range strings.Split(rel, "/") {
		if err := validateFileSegment(seg); err != nil {
			return fmt.Errorf("invalid path (segment %d of %s): %w", i+1, Quote(rel), err)
		}
		if i == 0 && seg == ReservedFirstSegment {
			return fmt.Errorf("path may not have %q as its first segment (reserved as the iii://fn/ section-URI marker): %s", ReservedFirstSegment, Quote(rel))
		}
	}
	return nil
}

func validateFileSegment(seg string) error {
	switch {
	case seg == "":
		return errors.New("segment must be non-empty")
	case seg[0] == '.':
		return fmt.Errorf("segment may not start with '.' (hidden files, '.' and '..' are not served): %s", Quote(seg))
	case len(seg) > MaxFileSegmentBytes:
		return fmt.Errorf("segment too long (%d bytes; max %d): %s", len(seg), MaxFileSegmentBytes, Quote(seg))
	}
	for _, r := range seg {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`\%#`, r) {
			return fmt.Errorf("segment may not hold control characters, '\\', '%%' or '#': %s", Quote(seg))
		}
	}
	return nil
}

// Collision is two or more files whose paths map onto one id: none of
// them is served under it.
type Collision struct {
	ID    string
	Paths []string // sorted
}

// Error says which files collide and what to do.
func (c Collision) Error() string {
	q := make([]string, len(c.Paths))
	for i, p := range c.Paths {
		q[i] = Quote(p)
	}
	return fmt.Sprintf("%s map onto one id %s, so none of them is served; rename all but one (docs/decisions.md D69)",
		strings.Join(q, " and "), Quote(c.ID))
}

// Assign maps each path to its FileID, leaving out the paths FileID
// refuses (with their errors in bad) and every path of a Collision. The
// result is one to one: each id names exactly one path, and FileID of
// that path is the id.
func Assign(paths []string) (byID map[string]string, collisions []Collision, bad map[string]error) {
	byID = make(map[string]string, len(paths))
	claims := make(map[string][]string, len(paths))
	for _, p := range paths {
		id, err := FileID(p)
		if err != nil {
			if bad == nil {
				bad = map[string]error{}
			}
			bad[p] = err
			continue
		}
		if !slices.Contains(claims[id], p) {
			claims[id] = append(claims[id], p)
		}
	}
	for id, ps := range claims {
		if len(ps) == 1 {
			byID[id] = ps[0]
			continue
		}
		slices.Sort(ps)
		collisions = append(collisions, Collision{ID: id, Paths: ps})
	}
	slices.SortFunc(collisions, func(a, b Collision) int { return strings.Compare(a.ID, b.ID) })
	return byID, collisions, bad
}
