package ids_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/ids"
)

func ExampleFileID() {
	for _, rel := range []string{
		"pdf-tool/SKILL.md",
		"pdf-tool/references/forms.md",
		"pdf-tool/references/API_REFERENCE.md",
		"pdf-tool/scripts/fill_form.py",
		"pdf-tool/LICENSE.txt",
		"pdf-tool/references/API_REFERENCE.md", // an id is its own id: a read may name the path
	} {
		id, _ := ids.FileID(rel)
		fmt.Printf("%-38s → iii://%s\n", rel, id)
	}
	// Output:
	// pdf-tool/SKILL.md                      → iii://pdf-tool
	// pdf-tool/references/forms.md           → iii://pdf-tool/references/forms
	// pdf-tool/references/API_REFERENCE.md   → iii://pdf-tool/references/API_REFERENCE.md
	// pdf-tool/scripts/fill_form.py          → iii://pdf-tool/scripts/fill_form.py
	// pdf-tool/LICENSE.txt                   → iii://pdf-tool/LICENSE.txt
	// pdf-tool/references/API_REFERENCE.md   → iii://pdf-tool/references/API_REFERENCE.md
}

func ExampleAssign() {
	byID, collisions, _ := ids.Assign([]string{
		"pdf-tool/SKILL.md",
		"pdf-tool/references/forms.md",
		"pdf-tool/references/forms.MD",
		"pdf-tool/Forms.md",
	})
	fmt.Println(byID)
	for _, c := range collisions {
		fmt.Println(c)
	}
	// Output:
	// map[pdf-tool:pdf-tool/SKILL.md pdf-tool/Forms.md:pdf-tool/Forms.md]
	// "pdf-tool/references/forms.MD" and "pdf-tool/references/forms.md" map onto one id "pdf-tool/references/forms", so none of them is served; rename all but one (docs/decisions.md D69)
}

func TestFileID(t *testing.T) {
	for _, tc := range []struct {
		rel, want, err string
	}{
		{rel: "a/SKILL.md", want: "a"},
		{rel: "a/b/skill.md", want: "a/b"},
		{rel: "a/references/forms.md", want: "a/references/forms"},
		{rel: "a/references/forms.MD", want: "a/references/forms"},
		{rel: "a/README.md", want: "a/README.md"},
		{rel: "a/references/CI_CD.md", want: "a/references/CI_CD.md"},
		{rel: "a/v1.2.md", want: "a/v1.2.md"},
		{rel: "a/scripts/run", want: "a/scripts/run"},
		{rel: "a/assets/logo.png", want: "a/assets/logo.png"},
		{rel: "a/My Notes.md", want: "a/My Notes.md"},
		{rel: "a/notes.md.md", want: "a/notes.md.md"},
		{rel: "SKILL.md", err: "directly in a root"},
		{rel: "A/SKILL.md", err: "not a skill id"},
		{rel: "fn/x.md", err: "reserved"},
		{rel: "", err: "non-empty"},
		{rel: "a//b", err: "segment 2"},
		{rel: "/a", err: "segment 1"},
		{rel: "a/", err: "segment 2"},
		{rel: "a/../b", err: "may not start with '.'"},
		{rel: "a/./b", err: "may not start with '.'"},
		{rel: "a/.git/config", err: "may not start with '.'"},
		{rel: "a/b%2Fc", err: "'%'"},
		{rel: "a/b#top", err: "'#'"},
		{rel: "a/Form Template?.md", want: "a/Form Template?.md"},
		{rel: "a/b\\c", err: "'\\'"},
		{rel: "a/b\x00c", err: "control"},
		{rel: "a/\xff", err: "UTF-8"},
		{rel: "a/" + strings.Repeat("x", 256), err: "too long"},
		{rel: strings.Repeat("a/", 64) + "b", err: "segments"},
		{rel: strings.Repeat("abcdefgh/", 120), err: "too long"},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			got, err := ids.FileID(tc.rel)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("FileID(%q) = %q, %v; want an error containing %q", tc.rel, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("FileID(%q) = %q, %v; want %q", tc.rel, got, err, tc.want)
			}
			if again, err := ids.FileID(got); err != nil || again != got {
				t.Errorf("FileID(%q) = %q, %v; an id must be its own id", got, again, err)
			}
		})
	}
}

func TestAssignReportsEveryCollisionWithAllPaths(t *testing.T) {
	byID, collisions, bad := ids.Assign([]string{
		"a/SKILL.md", "a/skill.md", // two SKILL.md on a case-sensitive disk
		"a/b.md", "a/b/SKILL.md", // a file and a nested skill
		"a/c.md", "a/c", // a markdown file and an extensionless file
		"a/d.md", "a/d.md", // one file listed twice is no collision
		"a/E.md", "fn/x",
	})
	wantByID := map[string]string{"a/d": "a/d.md", "a/E.md": "a/E.md"}
	if diff := cmp.Diff(wantByID, byID); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	want := []ids.Collision{
		{ID: "a", Paths: []string{"a/SKILL.md", "a/skill.md"}},
		{ID: "a/b", Paths: []string{"a/b.md", "a/b/SKILL.md"}},
		{ID: "a/c", Paths: []string{"a/c", "a/c.md"}},
	}
	if diff := cmp.Diff(want, collisions); diff != "" {
		t.Errorf("collisions (-want +got):\n%s", diff)
	}
	if len(bad) != 1 || bad["fn/x"] == nil {
		t.Errorf("refused = %v; want only fn/x", bad)
	}
}
