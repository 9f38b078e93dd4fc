package fsource

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// Roots are folders of Agent Skills (agentskills.io; docs/decisions.md
// D30, D31): <root>/<name>/SKILL.md, nested folders allowed
// (<root>/a/b/SKILL.md is the skill a/b). The other markdown files of a
// skill folder, at any depth, are served as nested ids
// (<name>/references/forms.md is <name>/references/forms), so that a
// SKILL.md's relative links resolve through iii://. A root is walked like
// a glob whose root is the folder (D24, D25): links that leave it are
// skipped unless allow_paths holds their target.

// SkillFile is the file that makes a folder an Agent Skill, matched
// without regard to case.
const SkillFile = "SKILL.md"

// Roots adds folders of Agent Skills, in precedence order (an earlier root
// wins an id over a later one; globs win over every root). A leading "~/"
// is the home directory; relative folders resolve against the base.
func Roots(dirs ...string) Option {
	return func(s *Source) { s.rootDirs = append(s.rootDirs, dirs...) }
}

// ExpandHome replaces a leading "~/" (or a lone "~") with the home
// directory; other paths are returned unchanged.
func ExpandHome(dir string) string {
	if dir != "~" && !strings.HasPrefix(dir, "~/") {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return dir
	}
	return filepath.Join(home, strings.TrimPrefix(strings.TrimPrefix(dir, "~"), "/"))
}

// RootDirs are the roots as absolute folders, in precedence order.
func (s *Source) RootDirs() []string { return append([]string(nil), s.rootDirs...) }

// AllowDirs are the allow_paths directories, absolute.
func (s *Source) AllowDirs() []string { return append([]string(nil), s.allow...) }

// rootPattern is the glob a root is walked with: every file under it
// (D69; before it, only markdown files).
func rootPattern(root string) string {
	return filepath.Join(escapeMeta(root), "**", "*")
}

// frontNameRe is an Agent Skills name (D31): a-z, 0-9 and single hyphens.
var frontNameRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidName reports whether name is an Agent Skills name: 1 to 64
// characters of a-z, 0-9 and single hyphens, not at either end.
func ValidName(name string) bool { return len(name) <= 64 && frontNameRe.MatchString(name) }

// rootSkills lists the files of one root's skill folders in path order,
// each under the id ids.FileID gives its path below the root (D69).
// Hidden files (a segment starting with '.') are left out without a word,
// as FolderFiles leaves them out; a path the rule refuses, a file over
// the body limit and every file of a collision are skipped with the
// reason.
func (s *Source) rootSkills(sc *scan, root string) []Skill {
	matches, _ := s.expand(sc, []string{rootPattern(root)})
	folders := map[string]bool{}
	for _, m := range matches {
		if strings.EqualFold(filepath.Base(m.path), SkillFile) {
			folders[filepath.Dir(m.path)] = true
		}
	}
	var (
		files []rootFile
		rels  []string
	)
	for _, m := range matches {
		rel := filepath.ToSlash(mustRel(root, m.path))
		if hiddenPath(rel) {
			continue
		}
		folder, ok := skillFolder(root, filepath.Dir(m.path), folders)
		if !ok {
			continue // a file outside any skill folder is not served
		}
		fi, err := sc.admit(m)
		if err != nil {
			if reason := admitReason("stat: ", err); reason != "" {
				sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: reason})
			}
			continue
		}
		isSkillFile := strings.EqualFold(filepath.Base(m.path), SkillFile) && filepath.Dir(m.path) == folder
		if folder == root {
			if isSkillFile {
				sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path,
					Reason: fmt.Sprintf("a %s directly in the root %s has no folder to name it; move it to %s", SkillFile, root, filepath.Join(root, "<name>", SkillFile))})
			}
			continue
		}
		if reason := oversized(m.path, fi.Size(), sc.inside(m.realRoot)); reason != "" {
			sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: reason})
			continue
		}
		files = append(files, rootFile{m: m, fi: fi, folder: folder, rel: rel, skillFile: isSkillFile})
		rels = append(rels, rel)
	}
	byID, collisions, bad := ids.Assign(rels)
	idOf := make(map[string]string, len(byID))
	for id, rel := range byID {
		idOf[rel] = id
	}
	collided := map[string]string{}
	for _, c := range collisions {
		for _, rel := range c.Paths {
			collided[rel] = c.Error()
		}
	}
	var skills []Skill
	for _, f := range files {
		m, fi := f.m, f.fi
		id, ok := idOf[f.rel]
		switch {
		case bad[f.rel] != nil:
			sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: "invalid id: " + bad[f.rel].Error()})
			continue
		case !ok:
			sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: collided[f.rel]})
			continue
		}
		sk := Skill{ID: id, Path: m.path, Size: fi.Size(), ModTime: fi.ModTime(), Stamp: StampOf(fi), Root: root}
		if f.skillFile {
			front, warnings, reason := readSkillFront(m.path, filepath.Base(f.folder), sc.inside(m.realRoot))
			if reason != "" {
				sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: reason})
				continue
			}
			for _, w := range warnings {
				sc.skips = append(sc.skips, Skip{Kind: KindSkill, Path: m.path, Reason: w, Warning: true})
			}
			sk.SkillFile, sk.Name, sk.Description = true, front.name, front.description
		}
		skills = append(skills, sk)
	}
	return skills
}

// rootFile is a file of a root's skill folder admitted to the listing,
// before ids.Assign judges its path.
type rootFile struct {
	m         match
	fi        fs.FileInfo
	folder    string
	rel       string // below the root, '/'-separated
	skillFile bool
}

// hiddenPath reports whether a '/'-separated path has a segment starting
// with '.' (.git, .DS_Store): such files are not served from a root.
func hiddenPath(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// skillFolder is the nearest folder at or above dir, within root, that
// holds a SKILL.md.
func skillFolder(root, dir string, folders map[string]bool) (string, bool) {
	for d := dir; within(root, d); d = filepath.Dir(d) {
		if folders[d] {
			return d, true
		}
		if d == root {
			break
		}
	}
	return "", false
}

func mustRel(base, target string) string {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return target
	}
	return rel
}

// skillFront is what the index needs of a SKILL.md's frontmatter.
type skillFront struct {
	name, description string
}

// readSkillFront reads a SKILL.md's frontmatter (D31): it must parse as a
// YAML mapping with a non-empty description, else the skill is skipped
// with the reason; everything else the format asks for only warns.
func readSkillFront(path, folder string, check openedCheck) (front skillFront, warnings []string, reason string) {
	b, err := readMatched(path, check)
	if err != nil {
		return front, nil, "read: " + err.Error()
	}
	return parseSkillFront(b, folder)
}

// parseSkillFront is readSkillFront on the file's bytes.
func parseSkillFront(b []byte, folder string) (front skillFront, warnings []string, reason string) {
	raw, _, ok := skillmd.SplitFrontmatter(b)
	if !ok {
		return front, nil, "no YAML frontmatter: a SKILL.md starts with a --- block holding at least a description"
	}
	var fields map[string]any
	if err := yaml.Unmarshal(raw, &fields); err != nil {
		return front, nil, "invalid YAML frontmatter: " + ids.Unquoted(err.Error())
	}
	desc, _ := fields["description"].(string)
	if front.description = strings.TrimSpace(desc); front.description == "" {
		return front, nil, "the frontmatter has no description (a non-empty string, 1 to 1024 characters)"
	}
	if n := len([]rune(front.description)); n > 1024 {
		warnings = append(warnings, fmt.Sprintf("description is %d characters; at most 1024", n))
	}
	name, isString := fields["name"].(string)
	front.name = name
	switch {
	case fields["name"] == nil:
		warnings = append(warnings, fmt.Sprintf("the frontmatter has no name; it should be the folder name %s", ids.Quote(folder)))
	case !isString || len(name) > 64 || !frontNameRe.MatchString(name):
		warnings = append(warnings, fmt.Sprintf("name %s: 1 to 64 characters of a-z, 0-9 and single hyphens, not at either end", ids.Quote(fmt.Sprint(fields["name"]))))
	case name != folder:
		warnings = append(warnings, fmt.Sprintf("name %s differs from its folder name %s", ids.Quote(name), ids.Quote(folder)))
	}
	if c, ok := fields["compatibility"].(string); ok && len([]rune(c)) > 500 {
		warnings = append(warnings, fmt.Sprintf("compatibility is %d characters; at most 500", len([]rune(c))))
	}
	if m, ok := fields["metadata"]; ok {
		if mm, isMap := m.(map[string]any); !isMap || !allStrings(mm) {
			warnings = append(warnings, "metadata should map strings to strings")
		}
	}
	if w := unknownKeysWarning(fields); w != "" {
		warnings = append(warnings, w)
	}
	return front, warnings, ""
}

func allStrings(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}
