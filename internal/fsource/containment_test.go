package fsource

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// realDir is dir with symbolic links resolved (t.TempDir may sit under a
// linked /tmp), for expected texts that name real paths.
func realDir(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// escapeLine is the skip line of a link leaving its root, in skipLines
// form.
func escapeLine(kind, link, target, root string) string {
	return kind + " " + link + ": symlink " + link + " points to " + target + ", outside " + root +
		"; add a parent directory of the target to allow_paths to serve it"
}

func TestSymlinkOutsideTheRootIsNotServed(t *testing.T) {
	outside := realDir(t, writeTree(t, map[string]string{
		"secret.md": "---\ndescription: secret\n---\nsecret body\n",
	}))
	dir := writeTree(t, map[string]string{
		"s/ok.md":   "---\ndescription: ok\n---\nok\n",
		"s/leak.md": "->" + filepath.Join(outside, "secret.md"),
	})
	src := New(dir, []string{"s/*.md"}, []string{"s/*.md"})

	skills, skips := src.Skills()
	if diff := cmp.Diff([]string{"ok {dir}/s/ok.md"}, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	want := []string{escapeLine("skill", "{dir}/s/leak.md", outside+"/secret.md", "{dir}/s")}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skill skips (-want +got):\n%s", diff)
	}

	prompts, skips := src.Prompts()
	if diff := cmp.Diff([]string{"ok {dir}/s/ok.md: ok"}, promptLines(dir, prompts)); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	want = []string{escapeLine("prompt", "{dir}/s/leak.md", outside+"/secret.md", "{dir}/s")}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("prompt skips (-want +got):\n%s", diff)
	}
}

// The reported leak: a link to the worker's environment.
func TestSymlinkToProcEnvironIsNotServed(t *testing.T) {
	const environ = "/proc/self/environ"
	if _, err := os.Stat(environ); err != nil {
		t.Skip("no " + environ)
	}
	dir := writeTree(t, map[string]string{"s/leak.md": "->" + environ})
	src := New(dir, []string{"s/*.md"}, []string{"s/*.md"})
	skills, skips := src.Skills()
	if len(skills) != 0 || len(skips) != 1 || !strings.Contains(skips[0].Reason, "outside "+filepath.Join(dir, "s")+"; add a parent directory of the target to allow_paths") {
		t.Errorf("skills = %v, skips = %v; want none and one containment skip", skills, skips)
	}
	prompts, skips := src.Prompts()
	if len(prompts) != 0 || len(skips) != 1 || !strings.HasPrefix(skips[0].Reason, "symlink "+filepath.Join(dir, "s", "leak.md")+" points to /proc/") {
		t.Errorf("prompts = %v, skips = %v; want none and one containment skip", prompts, skips)
	}
}

func TestAllowPathsServesLinksIntoThem(t *testing.T) {
	outside := writeTree(t, map[string]string{
		"shared/secret.md":   "---\ndescription: shared\n---\nbody\n",
		"shared/sub/deep.md": "---\ndescription: deep\n---\nbody\n",
	})
	dir := writeTree(t, map[string]string{
		"s/shared.md": "->" + filepath.Join(outside, "shared", "secret.md"),
		"s/ext":       "->" + filepath.Join(outside, "shared", "sub"),
	})
	for _, allow := range []string{
		filepath.Join(outside, "shared"),
		outside,
		filepath.Join(outside, "shared", "..", "shared") + string(filepath.Separator),
	} {
		t.Run(allow, func(t *testing.T) {
			src := New(dir, []string{"s/**/*.md"}, []string{"s/**/*.md"}, AllowPaths(allow))
			skills, skips := src.Skills()
			want := []string{"ext/deep {dir}/s/ext/deep.md", "shared {dir}/s/shared.md"}
			if diff := cmp.Diff(want, skillLines(dir, skills)); diff != "" {
				t.Errorf("skills (-want +got):\n%s", diff)
			}
			if len(skips) != 0 {
				t.Errorf("skips = %v, want none", skipLines(dir, skips))
			}
			prompts, skips := src.Prompts()
			if len(prompts) != 2 || len(skips) != 0 {
				t.Errorf("prompts = %v, skips = %v; want 2 and none", promptLines(dir, prompts), skipLines(dir, skips))
			}
			for _, sk := range skills { // the reads agree with the listing
				if body, err := src.ReadBody(sk.Path); err != nil || body != "body\n" {
					t.Errorf("ReadBody(%s) = %q, %v", sk.Path, body, err)
				}
			}
		})
	}
}

func TestAllowPathsRelativeResolvesAgainstBase(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"base/s/link.md":  "->../../shared/x.md",
		"shared/x.md":     "x",
		"elsewhere/y.md":  "y",
		"base/s/other.md": "->../../elsewhere/y.md",
	})
	src := New(filepath.Join(dir, "base"), []string{"s/*.md"}, nil, AllowPaths("../shared"))
	skills, skips := src.Skills()
	if diff := cmp.Diff([]string{"link {dir}/base/s/link.md"}, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	target := strings.ReplaceAll(filepath.Join(realDir(t, dir), "elsewhere", "y.md"), dir, "{dir}")
	want := []string{escapeLine("skill", "{dir}/base/s/other.md", target, "{dir}/base/s")}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestAllowPathsDoNotAllowSiblingsWithACommonPrefix(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"s/link.md":         "->../shared-other/x.md",
		"shared-other/x.md": "x",
		"shared/":           "",
	})
	skills, skips := New(dir, []string{"s/*.md"}, nil, AllowPaths(filepath.Join(dir, "shared"))).Skills()
	if len(skills) != 0 || len(skips) != 1 {
		t.Errorf("skills = %v, skips = %v; want none and one skip", skills, skips)
	}
}

func TestSymlinksInsideTheRootAreFollowed(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"s/real/x.md": "---\ndescription: x\n---\nx\n",
		"s/alias.md":  "->real/x.md",
		"s/aliasdir":  "->real",
		"s/chain.md":  "->alias.md",
	})
	skills, skips := New(dir, []string{"s/**/*.md"}, nil).Skills()
	want := []string{
		"alias {dir}/s/alias.md",
		"aliasdir/x {dir}/s/aliasdir/x.md",
		"chain {dir}/s/chain.md",
		"real/x {dir}/s/real/x.md",
	}
	if diff := cmp.Diff(want, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(skips) != 0 {
		t.Errorf("skips = %v, want none", skipLines(dir, skips))
	}
	src := New(dir, []string{"s/**/*.md"}, nil)
	for _, sk := range skills {
		if b, err := src.ReadFile(sk.Path); err != nil || string(b) != "---\ndescription: x\n---\nx\n" {
			t.Errorf("ReadFile(%s) = %q, %v", sk.Path, b, err)
		}
	}
}

// The source's reads check the file they opened, not its name: a listed
// file whose directory has since been swapped for a link out of the root
// is refused by ReadBody, ReadFile and ReadBytes, while the package's
// plain reads, which know no roots, read it.
func TestSourceReadsRefuseWhatLeftTheRoots(t *testing.T) {
	outside := writeTree(t, map[string]string{"docs/a.md": "---\ndescription: secret\n---\nsecret\n"})
	dir := writeTree(t, map[string]string{"s/docs/a.md": "---\ndescription: a\n---\na\n"})
	src := New(dir, []string{"s/**/*.md"}, nil)
	skills, _ := src.Skills()
	if len(skills) != 1 {
		t.Fatalf("listed %v", skillLines(dir, skills))
	}
	path := skills[0].Path
	if b, err := src.ReadBytes(path); err != nil || string(b) != "---\ndescription: a\n---\na\n" {
		t.Fatalf("before the swap: %q, %v", b, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "s", "docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "docs"), filepath.Join(dir, "s", "docs")); err != nil {
		t.Fatal(err)
	}
	if _, err := src.ReadBody(path); !errors.Is(err, ErrEscaped) {
		t.Errorf("ReadBody after the swap: %v, want ErrEscaped", err)
	}
	if _, err := src.ReadFile(path); !errors.Is(err, ErrEscaped) {
		t.Errorf("ReadFile after the swap: %v, want ErrEscaped", err)
	}
	if _, err := src.ReadBytes(path); !errors.Is(err, ErrEscaped) {
		t.Errorf("ReadBytes after the swap: %v, want ErrEscaped", err)
	}
	if body, err := ReadBody(path); err != nil || body != "secret\n" {
		t.Errorf("the plain ReadBody: %q, %v", body, err)
	}
	if skills, skips := src.Skills(); len(skills) != 0 || len(skips) != 1 {
		t.Errorf("the next listing: %v, skips %v; want the link skipped", skillLines(dir, skills), skipLines(dir, skips))
	}
}

// Where an open file cannot be named (not Linux), its name is resolved
// after the open and must lead to the same file: a swap after the open
// is caught, and reads as a file that changed (look again), not as one
// inside the roots.
func TestRealByNameCatchesASwapAfterTheOpen(t *testing.T) {
	dir := writeTree(t, map[string]string{"in/a.md": "a\n", "out/a.md": "secret\n"})
	path := filepath.Join(dir, "in", "a.md")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if real, err := realByName(path, f); err != nil || real != filepath.Join(realDir(t, dir), "in", "a.md") {
		t.Fatalf("before a swap: %q, %v", real, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "out"), filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	if real, err := realByName(path, f); !errors.Is(err, errReplaced) || !errors.Is(err, fs.ErrNotExist) || real != "" {
		t.Errorf("after a swap: %q, %v; want errReplaced", real, err)
	}
}

// A pattern's root is its static prefix: a link out of a subdirectory is
// fine while it stays under the root, and the root itself may be reached
// through a link (the operator named it).
func TestRootIsTheStaticPrefix(t *testing.T) {
	outside := writeTree(t, map[string]string{"team/x.md": "x"})
	dir := writeTree(t, map[string]string{
		"docs/a/x.md":    "x",
		"docs/b/link.md": "->../a/x.md",
		"linked":         "->" + filepath.Join(outside, "team"),
	})
	skills, skips := New(dir, []string{"docs/**/*.md", "linked/*.md"}, nil).Skills()
	want := []string{
		"a/x {dir}/docs/a/x.md",
		"b/link {dir}/docs/b/link.md",
		"x {dir}/linked/x.md",
	}
	if diff := cmp.Diff(want, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(skips) != 0 {
		t.Errorf("skips = %v, want none", skipLines(dir, skips))
	}
	// The same link under a narrower root leaves it.
	skills, skips = New(dir, []string{"docs/b/*.md"}, nil).Skills()
	if len(skills) != 0 || len(skips) != 1 || !strings.Contains(skips[0].Reason, "outside "+filepath.Join(dir, "docs", "b")+";") {
		t.Errorf("skills = %v, skips = %v; want none and a containment skip", skills, skipLines(dir, skips))
	}
}

func TestDirectorySymlinkOutsideTheRootIsNotWalked(t *testing.T) {
	outside := realDir(t, writeTree(t, map[string]string{"x.md": "x", "sub/y.md": "y"}))
	dir := writeTree(t, map[string]string{
		"s/ok.md": "ok",
		"s/ext":   "->" + outside,
	})
	skills, skips := New(dir, []string{"s/**/*.md", "s/{ext,none}/x.md"}, nil).Skills()
	if diff := cmp.Diff([]string{"ok {dir}/s/ok.md"}, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	// Reported once, though both patterns meet it.
	want := []string{escapeLine("skill", "{dir}/s/ext", outside, "{dir}/s")}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		dir, p string
		want   bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/", "/anything", true},
		{"", "/a", false},
	}
	for _, tt := range tests {
		if filepath.Separator != '/' {
			t.Skip("unix paths")
		}
		if got := within(tt.dir, tt.p); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.dir, tt.p, got, tt.want)
		}
	}
}

// A root reached through a link that is pointed elsewhere: reads follow
// it at once, though the roots were resolved (and kept) before.
func TestReadsFollowARootPointedElsewhere(t *testing.T) {
	dir := writeTree(t, map[string]string{"a/x.md": "---\ndescription: a\n---\na\n", "b/x.md": "---\ndescription: b\n---\nb\n", "skills": "->a"})
	src := New(dir, []string{"skills/*.md"}, nil)
	path := filepath.Join(dir, "skills", "x.md")
	if body, err := src.ReadBody(path); err != nil || body != "a\n" {
		t.Fatalf("through the first target: %q, %v", body, err)
	}
	if err := os.Remove(filepath.Join(dir, "skills")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b", filepath.Join(dir, "skills")); err != nil {
		t.Fatal(err)
	}
	if body, err := src.ReadBody(path); err != nil || body != "b\n" {
		t.Errorf("through the new target, before any listing: %q, %v", body, err)
	}
}
