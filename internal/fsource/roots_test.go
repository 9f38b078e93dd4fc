package fsource

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

// Agent Skills folders (D30, D31): a folder's SKILL.md is the skill named
// by its path under the root, its other files are nested ids (D69),
// frontmatter problems warn or skip, and precedence is globs, then roots
// in order, each shadowing reported.
func TestRootSkills(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"r1/pdf/SKILL.md":            skillMD("pdf", "Fill PDF forms.", "# PDF\n\nSee [forms](references/forms.md).\n"),
		"r1/pdf/references/forms.md": "# Forms\n\nHow to fill forms.\n",
		"r1/pdf/scripts/fill.py":     "print('not markdown')\n",
		"r1/a/b/SKILL.md":            skillMD("b", "Nested.", "# B\n"),
		"r1/a/notes.md":              "# Not in a skill folder\n",
		"r1/README.md":               "# The root's own readme\n",
		"r1/SKILL.md":                skillMD("root", "At the root.", "# Root\n"),
		"r1/broken/SKILL.md":         "---\nname: [unclosed\n---\n# Broken\n",
		"r1/nodesc/SKILL.md":         "---\nname: nodesc\n---\n# No description\n",
		"r1/bare/SKILL.md":           "# No frontmatter\n",
		"r1/misnamed/SKILL.md":       skillMD("other-name", "Named differently.", "# Misnamed\n"),
		"r1/lower/skill.md":          skillMD("lower", "Lower-case file name.", "# Lower\n"),
		"r2/pdf/SKILL.md":            skillMD("pdf", "A later root's pdf.", "# PDF 2\n"),
		"r2/extra/SKILL.md":          skillMD("extra", "From the second root.", "# Extra\n"),
		"r2/globbed/SKILL.md":        skillMD("globbed", "Shadowed by a glob.", "# Globbed\n"),
		"globs/globbed.md":           "# From a glob\n",
	})
	src := New(dir, []string{"globs/*.md"}, nil, Roots("r1", filepath.Join(dir, "r2"), "r1"))
	if got := src.RootDirs(); !slices.Equal(got, []string{filepath.Join(dir, "r1"), filepath.Join(dir, "r2")}) {
		t.Errorf("RootDirs = %q, want r1 and r2 once each, absolute", got)
	}
	skills, skips := src.Skills()
	var got []string
	for _, s := range skills {
		line := s.ID + " " + strings.TrimPrefix(s.Path, dir+"/")
		if s.SkillFile {
			line += " [" + s.Name + ": " + s.Description + "]"
		}
		got = append(got, line)
	}
	want := []string{
		"a/b r1/a/b/SKILL.md [b: Nested.]",
		"extra r2/extra/SKILL.md [extra: From the second root.]",
		"globbed globs/globbed.md",
		"lower r1/lower/skill.md [lower: Lower-case file name.]",
		"misnamed r1/misnamed/SKILL.md [other-name: Named differently.]",
		"pdf r1/pdf/SKILL.md [pdf: Fill PDF forms.]",
		"pdf/references/forms r1/pdf/references/forms.md",
		"pdf/scripts/fill.py r1/pdf/scripts/fill.py", // every file of the folder (D69)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	var reasons []string
	for _, sk := range skips {
		kind := "skip"
		if sk.Warning {
			kind = "warn"
		}
		reasons = append(reasons, kind+" "+strings.TrimPrefix(sk.Path, dir+"/")+": "+strings.ReplaceAll(sk.Reason, dir+"/", ""))
	}
	for _, w := range []string{
		"skip r1/SKILL.md: a SKILL.md directly in the root r1 has no folder to name it",
		"skip r1/broken/SKILL.md: invalid YAML frontmatter: yaml:",
		"skip r1/nodesc/SKILL.md: the frontmatter has no description",
		"skip r1/bare/SKILL.md: no YAML frontmatter",
		`warn r1/misnamed/SKILL.md: name "other-name" differs from its folder name "misnamed"`,
		`skip r2/pdf/SKILL.md: shadowed: r1/pdf/SKILL.md serves the id "pdf" first`,
		`skip r2/globbed/SKILL.md: shadowed: globs/globbed.md serves the id "globbed" first`,
	} {
		if !slices.ContainsFunc(reasons, func(r string) bool { return strings.HasPrefix(r, w) }) {
			t.Errorf("no report %q in:\n%s", w, strings.Join(reasons, "\n"))
		}
	}
	for _, r := range reasons {
		if strings.Contains(r, "README.md") || strings.Contains(r, "notes.md") || strings.Contains(r, "fill.py") {
			t.Errorf("a file outside any skill folder was reported: %s", r)
		}
	}
}

// A root's body reads without its frontmatter (D33), like any fs skill.
func TestRootSkillBodyHasNoFrontmatter(t *testing.T) {
	dir := writeTree(t, map[string]string{"r/pdf/SKILL.md": skillMD("pdf", "Fill PDF forms.", "# PDF\n\nBody.\n")})
	skills, _ := New(dir, nil, nil, Roots("r")).Skills()
	if len(skills) != 1 {
		t.Fatalf("skills = %+v", skills)
	}
	body, err := ReadBody(skills[0].Path)
	if err != nil || body != "# PDF\n\nBody.\n" {
		t.Errorf("body = %q, %v", body, err)
	}
}

// A missing root is no error: it serves nothing (and is watched for).
func TestMissingRootServesNothing(t *testing.T) {
	dir := t.TempDir()
	skills, skips := New(dir, nil, nil, Roots("nowhere", "~/definitely-missing-root-xyz")).Skills()
	if len(skills) != 0 || len(skips) != 0 {
		t.Errorf("skills %+v, skips %+v; want none", skills, skips)
	}
	if got := ExpandHome("~/x"); got == "~/x" || !strings.HasSuffix(got, "/x") {
		t.Errorf("ExpandHome(~/x) = %q", got)
	}
	if got := ExpandHome("./~/x"); got != "./~/x" {
		t.Errorf("ExpandHome(./~/x) = %q, want it unchanged", got)
	}
}

// Roots are watched like globs: a skill folder added under a root that did
// not exist yet is served once the watcher sees it, in both watch modes.
func TestWatchFollowsRoots(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts WatchOptions
	}{{"fsnotify", WatchOptions{}}, {"poll", WatchOptions{ForcePoll: true, PollInterval: 20 * time.Millisecond}}} {
		t.Run(mode.name, func(t *testing.T) {
			onModeClock(t, mode.opts.ForcePoll, func(t *testing.T) {
				dir := t.TempDir()
				w := NewWatch(New(dir, nil, nil, Roots("agents/skills")), mode.opts)
				w.Start(context.Background())
				t.Cleanup(w.Close)
				write(t, filepath.Join(dir, "agents/skills/pdf/SKILL.md"), skillMD("pdf", "Fill PDF forms.", "# PDF\n"))
				waitFor(t, w, "the new skill folder", func(s Snapshot) bool { return slices.Equal(skillIDs(s), []string{"pdf"}) })
				write(t, filepath.Join(dir, "agents/skills/pdf/references/forms.md"), "# Forms\n")
				waitFor(t, w, "the new reference", func(s Snapshot) bool {
					return slices.Equal(skillIDs(s), []string{"pdf", "pdf/references/forms"})
				})
			})
		})
	}
}

// FuzzSkillFront: no SKILL.md frontmatter makes the Agent Skills checks
// panic, and a skill they keep has a description (D31).
func FuzzSkillFront(f *testing.F) {
	f.Add([]byte(skillMD("pdf", "Fill PDF forms.", "# PDF\n")), "pdf")
	f.Add([]byte("---\nname: [unclosed\n---\n"), "x")
	f.Add([]byte("---\ndescription: 7\nmetadata: [1]\nname: {a: b}\ncompatibility: x\n---\n"), "y")
	f.Add([]byte("---\n---\n"), "")
	f.Fuzz(func(t *testing.T, b []byte, folder string) {
		front, _, reason := parseSkillFront(b, folder)
		if reason == "" && strings.TrimSpace(front.description) == "" {
			t.Fatalf("kept a SKILL.md without a description: %q", b)
		}
	})
}
