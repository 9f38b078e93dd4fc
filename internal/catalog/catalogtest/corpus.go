package catalogtest

import (
	"os"
	"path/filepath"
	"testing"
)

// PublicCorpus is the skills folder of the shared public Agent Skills
// corpus (unmodified public skills, read-only; internal/search's
// testdata/public/README.md): $SKILLS_PUBLIC_CORPUS, else
// shared/public-skills-corpus/skills beside the repository. Without it
// the test is skipped, naming where it looked.
func PublicCorpus(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SKILLS_PUBLIC_CORPUS")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "..", "shared", "public-skills-corpus", "skills")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skipf("the public skills corpus is not at %s (set SKILLS_PUBLIC_CORPUS): %v", abs, err)
	}
	return abs
}

// repoRoot is the nearest folder at or above the working directory (a
// test's package folder) that holds go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod at or above %s", dir)
		}
	}
}
