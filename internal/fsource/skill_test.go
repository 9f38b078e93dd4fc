package fsource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/ids"
)

// skillLines renders skills as "id {dir}/relative/path".
func skillLines(dir string, skills []Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, s.ID+" "+strings.ReplaceAll(s.Path, dir, "{dir}"))
	}
	return out
}

// invalidIDReason is the skip reason for a derived id that fails
// validation, with the validation text of package ids.
func invalidIDReason(id string) string {
	return "invalid id " + ids.Quote(id) + ": " + ids.ValidateSkillID(id).Error()
}

func TestSkills(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		base       string // relative to the temp dir; "" = the temp dir
		patterns   []string
		wantSkills []string
		wantSkips  []string
	}{
		{
			name: "reference: nested ids under **",
			files: map[string]string{
				"my-skills/foo.md":         "# Foo",
				"my-skills/foo/bar.md":     "# Bar",
				"my-skills/foo/bar/baz.md": "# Baz",
				"elsewhere/x.md":           "# X",
			},
			patterns: []string{"my-skills/**/*.md"},
			wantSkills: []string{
				"foo {dir}/my-skills/foo.md",
				"foo/bar {dir}/my-skills/foo/bar.md",
				"foo/bar/baz {dir}/my-skills/foo/bar/baz.md",
			},
		},
		{
			name:       "reference: literal path",
			files:      map[string]string{"docs/team-a.md": "# A", "docs/team-b.md": "# B"},
			patterns:   []string{"docs/team-a.md"},
			wantSkills: []string{"team-a {dir}/docs/team-a.md"},
		},
		{
			name:       "reference: *.md at the base stays in one directory",
			files:      map[string]string{"top.md": "# Top", "sub/deep.md": "# Deep"},
			patterns:   []string{"*.md"},
			wantSkills: []string{"top {dir}/top.md"},
		},
		{
			name:     "brace alternation",
			files:    map[string]string{"a/one.md": "1", "b/two.md": "2", "c/three.md": "3"},
			patterns: []string{"{a,b}/*.md"},
			wantSkills: []string{
				"a/one {dir}/a/one.md",
				"b/two {dir}/b/two.md",
			},
		},
		{
			name:     "character class and ?",
			files:    map[string]string{"s/a1.md": "", "s/b1.md": "", "s/c1.md": "", "s/a12.md": ""},
			patterns: []string{"s/[ab]?.md"},
			wantSkills: []string{
				"a1 {dir}/s/a1.md",
				"b1 {dir}/s/b1.md",
			},
		},
		{
			name:     "invalid patterns contribute nothing; later patterns still run",
			files:    map[string]string{"ok.md": "# ok"},
			patterns: []string{"[unclosed", "{a,b", "a}.md", "[]x.md", `trailing\`, "*.md"},
			wantSkills: []string{
				"ok {dir}/ok.md",
			},
			wantSkips: []string{
				`skill [unclosed: invalid glob "[unclosed": '[' at "[unclosed" is never closed by ']'`,
				`skill {a,b: invalid glob "{a,b": '{' at "{a,b" is never closed by '}'`,
				`skill a}.md: invalid glob "a}.md": '}' at "}.md" has no matching '{'`,
				`skill []x.md: invalid glob "[]x.md": empty character class at "[]x.md" (list at least one character between '[' and ']')`,
				`skill trailing\: invalid glob "trailing\\": pattern ends with an unfinished '\' escape`,
			},
		},
		{
			name: "invalid derived ids are skipped with the validation error",
			files: map[string]string{
				"s/Bad-Name.md":   "x",
				"s/with space.md": "x",
				"s/notes.txt":     "x",
				"s/fn/x.md":       "x",
				"s/.hidden.md":    "x",
				"s/ok.md":         "x",
			},
			patterns:   []string{"s/**/*"},
			wantSkills: []string{"ok {dir}/s/ok.md"},
			wantSkips: []string{
				"skill {dir}/s/.hidden.md: " + invalidIDReason(".hidden"),
				"skill {dir}/s/Bad-Name.md: " + invalidIDReason("Bad-Name"),
				"skill {dir}/s/fn/x.md: " + invalidIDReason("fn/x"),
				"skill {dir}/s/notes.txt: " + invalidIDReason("notes.txt"),
				"skill {dir}/s/with space.md: " + invalidIDReason("with space"),
			},
		},
		{
			name:     "duplicate ids across patterns: the first pattern wins",
			files:    map[string]string{"a/x.md": "a", "b/x.md": "b", "b/y.md": "y"},
			patterns: []string{"a/*.md", "b/*.md"},
			wantSkills: []string{
				"x {dir}/a/x.md",
				"y {dir}/b/y.md",
			},
			wantSkips: []string{
				`skill {dir}/b/x.md: duplicate id "x" also produced by {dir}/a/x.md`,
			},
		},
		{
			name:       "duplicate ids in one pattern: the first path in sorted order wins",
			files:      map[string]string{"s/x": "plain", "s/x.md": "markdown"},
			patterns:   []string{"s/*"},
			wantSkills: []string{"x {dir}/s/x"},
			wantSkips:  []string{`skill {dir}/s/x.md: duplicate id "x" also produced by {dir}/s/x`},
		},
		{
			// Each pattern derives its own id, as in the reference: the same
			// id from the same file again is dropped silently, a different
			// id from another pattern is another skill.
			name:       "the same file matched twice: same id kept once, silently; another id listed too",
			files:      map[string]string{"docs/x.md": "x"},
			patterns:   []string{"docs/*.md", "docs/**/*.md", "**/*.md"},
			wantSkills: []string{"docs/x {dir}/docs/x.md", "x {dir}/docs/x.md"},
		},
		{
			name:       "directories are ignored, even when named like files",
			files:      map[string]string{"d.md/": "", "empty/": "", "a.md": "a"},
			patterns:   []string{"*", "*.md"},
			wantSkills: []string{"a {dir}/a.md"},
		},
		{
			name:       "relative pattern may leave the base",
			files:      map[string]string{"base/": "", "other/x.md": "x"},
			base:       "base",
			patterns:   []string{"../other/*.md"},
			wantSkills: []string{"x {dir}/other/x.md"},
		},
		{
			name:     "missing directories match nothing",
			files:    map[string]string{"a.md": "a"},
			patterns: []string{"nope/**/*.md", "", "missing.md"},
		},
		{
			name:       "symbolic links inside the root are followed; broken ones are reported",
			files:      map[string]string{"s/real/x.md": "x", "s/link.md": "->real/x.md", "s/broken.md": "->../nowhere.md"},
			patterns:   []string{"s/*.md"},
			wantSkills: []string{"link {dir}/s/link.md"},
			wantSkips:  []string{"skill {dir}/s/broken.md: stat: no such file or directory"},
		},
		{
			name:     "skills come back sorted by id, not by path",
			files:    map[string]string{"z.md": "", "a.md": "", "m/x.md": "", "m-x.md": ""},
			patterns: []string{"**/*.md"},
			wantSkills: []string{
				"a {dir}/a.md",
				"m-x {dir}/m-x.md",
				"m/x {dir}/m/x.md",
				"z {dir}/z.md",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			skills, skips := New(filepath.Join(dir, tt.base), tt.patterns, nil).Skills()
			if diff := cmp.Diff(tt.wantSkills, skillLines(dir, skills)); diff != "" {
				t.Errorf("skills (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, skipLines(dir, skips)); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSkillsLaterPatternLoadsFileAnEarlierPatternSkipped
// (docs/reference.md#precedence and #ids-from-paths; upstream fs_source.rs
// expand_skill_globs):
// each pattern's matches are validated independently, and a file is
// skipped only as a duplicate of the same id from a different path. A
// file whose id under the first pattern is invalid (skipped) is still
// loaded under a later pattern that derives a valid id: here the
// reference serves `a` (from "Team/*.md"). Dropping every path an earlier
// pattern had matched, before validating, used to lose it.
func TestSkillsLaterPatternLoadsFileAnEarlierPatternSkipped(t *testing.T) {
	dir := writeTree(t, map[string]string{"Team/a.md": "# A\n"})
	skills, skips := New(dir, []string{"**/*.md", "Team/*.md"}, nil).Skills()
	if len(skills) != 1 || skills[0].ID != "a" {
		t.Errorf("skills = %v (skips %v), want one skill a", skillLines(dir, skills), skipLines(dir, skips))
	}
}

func TestSkillsAbsolutePatternIgnoresBase(t *testing.T) {
	dir := writeTree(t, map[string]string{"abs/team/x.md": "x"})
	src := New(t.TempDir(), []string{filepath.Join(dir, "abs", "**", "*.md")}, nil)
	skills, skips := src.Skills()
	if diff := cmp.Diff([]string{"team/x {dir}/abs/team/x.md"}, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(skips) != 0 {
		t.Errorf("skips = %v, want none", skips)
	}
}

func TestSkillsBaseWithGlobCharacters(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"[team] {a,b} *x?/docs/guide.md": "# Guide",
		"t/docs/decoy.md":                "# Decoy", // what `[team]` would match as a class
	})
	base := filepath.Join(dir, "[team] {a,b} *x?")
	skills, skips := New(base, []string{"docs/*.md"}, nil).Skills()
	want := []string{"guide {dir}/[team] {a,b} *x?/docs/guide.md"}
	if diff := cmp.Diff(want, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(skips) != 0 {
		t.Errorf("skips = %v, want none", skips)
	}
}

func TestSkillsEscapedPattern(t *testing.T) {
	dir := writeTree(t, map[string]string{"a*b/x.md": "x", "ab/y.md": "y", "aXb/z.md": "z"})
	skills, _ := New(dir, []string{`a\*b/*.md`}, nil).Skills()
	if diff := cmp.Diff([]string{"x {dir}/a*b/x.md"}, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
}

func TestSkillsSizeAndModTime(t *testing.T) {
	const content = "---\na: 1\n---\nbody\n"
	dir := writeTree(t, map[string]string{"x.md": content})
	mtime := time.Date(2026, 5, 4, 19, 22, 41, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "x.md"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "x.md"))
	if err != nil {
		t.Fatal(err)
	}
	skills, _ := New(dir, []string{"*.md"}, nil).Skills()
	want := []Skill{{ID: "x", Path: filepath.Join(dir, "x.md"), Size: int64(len(content)), ModTime: mtime, Stamp: StampOf(fi)}}
	if diff := cmp.Diff(want, skills, cmpTime, cmpStamp); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
}

// cmpTime compares times by instant, ignoring location.
var cmpTime = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

// cmpStamp compares change keys as the package judges them.
var cmpStamp = cmp.Comparer(Stamp.Equal)

func TestSkillsSeeEditsOnTheNextCall(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.md": "# A"})
	src := New(dir, []string{"*.md"}, nil)
	first, _ := src.Skills()
	if diff := cmp.Diff([]string{"a {dir}/a.md"}, skillLines(dir, first)); diff != "" {
		t.Fatalf("first call (-want +got):\n%s", diff)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	second, _ := src.Skills()
	if diff := cmp.Diff([]string{"b {dir}/b.md"}, skillLines(dir, second)); diff != "" {
		t.Errorf("second call (-want +got):\n%s", diff)
	}
}

func TestNewMakesBaseAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ base, want string }{
		{"", wd},
		{".", wd},
		{"sub/..//x", filepath.Join(wd, "x")},
		{"/abs/dir/", "/abs/dir"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			if got := New(tt.base, nil, nil).Base(); got != tt.want {
				t.Errorf("Base() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewCopiesPatterns(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.md": "a"})
	patterns := []string{"*.md"}
	src := New(dir, patterns, nil)
	patterns[0] = "nothing-*.md"
	skills, _ := src.Skills()
	if len(skills) != 1 {
		t.Errorf("got %d skills after the caller changed its slice, want 1", len(skills))
	}
}
