package lint_test

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// The false-positive rate on the shared public corpus (BENCHMARKS.md,
// "2026-11-28 — issue 27: content lint"): 1,555 files the worker serves
// from a root over the corpus's 438 public Agent Skills (each SKILL.md
// and its reference files). The skills are not committed; the tests look
// for them where internal/search's do and skip, saying where they looked,
// when there is no copy.

// corpusDirs are where the corpus's skills folder is looked for:
// $SKILLS_PUBLIC_CORPUS, then the copy in the shared folder beside the
// repository.
func corpusDirs() []string {
	var dirs []string
	if d := os.Getenv("SKILLS_PUBLIC_CORPUS"); d != "" {
		dirs = append(dirs, d)
	}
	// Where the search tests find it too (.ci/run names both suites when
	// neither finds it).
	return append(dirs, filepath.Join("..", "search", "testdata", "public", "skills"),
		filepath.Join("..", "..", "..", "shared", "public-skills-corpus", "skills"))
}

// corpusFile is one served file: its id, path and bytes.
type corpusFile struct {
	id, path string
	raw      []byte
}

// loadCorpus reads the corpus as a root, as the worker serves it.
func loadCorpus(tb testing.TB) []corpusFile {
	tb.Helper()
	for _, dir := range corpusDirs() {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			tb.Fatal(err)
		}
		src := fsource.New(filepath.Dir(abs), nil, nil, fsource.Roots(filepath.Base(abs)))
		skills, _ := src.Skills()
		out := make([]corpusFile, 0, len(skills))
		for _, sk := range skills {
			raw, _, _ := src.ReadSkill(sk.Path)
			out = append(out, corpusFile{id: sk.ID, path: sk.Path, raw: raw})
		}
		return out
	}
	tb.Skipf("no copy of the public skills corpus in %v (set $SKILLS_PUBLIC_CORPUS to its skills folder)", corpusDirs())
	return nil
}

// reviewed is every finding on the corpus, each read and classified:
// "hostile" (none), "benign" (the rule found what it names, in a skill
// that means no harm: an installer's curl | sh, the path of the AWS
// credentials file in setup instructions, a detection rule that names
// the paths malware reads) or "false" (the rule found something other
// than what it names). A change to a rule that flags anything else fails
// here until the new finding is reviewed and added.
var reviewed = map[string]string{
	"hashicorp/aws-ami-builder " + lint.RuleCredentialPath:                                                "benign: where Packer finds AWS credentials",
	"hashicorp/windows-builder " + lint.RuleDownloadExec:                                                  "benign: the Chocolatey installer in a Packer provisioner",
	"scientific/markdown-mermaid-writing/references/markdown_style_guide " + lint.RuleBidi:                "benign: U+200E before two code fences, invisible in review",
	"trailofbits/agentic-actions-auditor/references/vector-f-subshell-expansion " + lint.RuleDownloadExec: "benign: an attack example in an auditing guide",
	"trailofbits/devcontainer-setup/references/dockerfile-best-practices " + lint.RuleDownloadExec:        "benign: an installer in a Dockerfile example on pipefail",
	"trailofbits/interpreting-culture-index " + lint.RuleDownloadExec:                                     "benign: the uv installer",
	"trailofbits/libafl " + lint.RuleDownloadExec:                                                         "benign: the rustup installer",
	"trailofbits/modern-python/references/security-setup " + lint.RuleDownloadExec:                        "benign: the prek installer",
	"trailofbits/modern-python/references/uv-commands " + lint.RuleDownloadExec:                           "benign: the uv installers (sh and PowerShell)",
	"trailofbits/sharp-edges/references/config-patterns " + lint.RuleCredentialPath:                       "benign: /etc/shadow in a path-traversal example",
	"trailofbits/yara-rule-authoring " + lint.RuleCredentialPath:                                          "benign: a YARA rule's strings for credential theft",
	"trailofbits/yara-rule-authoring/references/strings " + lint.RuleCredentialPath:                       "benign: a YARA rule's strings for credential theft",
	"wshobson/gitops-workflow " + lint.RuleDownloadExec:                                                   "benign: the Flux installer",
	"wshobson/linkerd-patterns " + lint.RuleDownloadExec:                                                  "benign: the Linkerd installer",
	"wshobson/python-packaging/references/details " + lint.RuleCredentialPath:                             "benign: where twine reads its PyPI token",
	"wshobson/uv-package-manager " + lint.RuleDownloadExec:                                                "benign: the uv installers (sh and PowerShell)",
}

func TestPublicCorpusFindingsAreReviewed(t *testing.T) {
	files := loadCorpus(t)
	got := map[string]string{}
	perRule := map[string]int{}
	flagged := 0
	for _, f := range files {
		r := lint.Check(string(f.raw))
		if r == nil {
			continue
		}
		flagged++
		for _, rule := range r.Rules() {
			perRule[rule]++
			key := f.id + " " + rule
			got[key] = reviewed[key]
			if got[key] == "" {
				got[key] = fmt.Sprintf("not reviewed: %+v", r.Findings)
			}
		}
	}
	if diff := cmp.Diff(reviewed, got); diff != "" {
		t.Errorf("findings on the public corpus (-reviewed +found); review each new one and classify it:\n%s", diff)
	}
	falsePositives := 0
	for _, class := range got {
		if !strings.HasPrefix(class, "benign") {
			falsePositives++
		}
	}
	t.Logf("%d files, %d flagged (%.2f %%); entries per rule %v; %d findings not benign",
		len(files), flagged, 100*float64(flagged)/float64(len(files)), perRule, falsePositives)
	for _, rule := range slices.Sorted(maps.Keys(perRule)) {
		t.Logf("  %s: %d", rule, perRule[rule])
	}
}

// corpusBytes is the bytes of the files.
func corpusBytes(files []corpusFile) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.raw))
	}
	return n
}

// load is what the view does with each file it lists (fileMetaOf in
// internal/catalog) apart from the lint: read it, digest the bytes, parse
// the frontmatter and summarise. It returns the bytes read.
func load(tb testing.TB, f corpusFile) []byte {
	raw, err := os.ReadFile(f.path)
	if err != nil {
		tb.Fatal(err)
	}
	sha256.Sum256(raw)
	skillmd.Summarize(f.id, skillmd.Parse(string(raw)))
	return raw
}

// cpuTime is the process's user and system CPU time: the benchmarks
// report it per MB beside the wall time, which a machine shared with
// other work inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// corpusBench runs each over every file per iteration and reports the
// CPU time per MB (cpu-ns/MB) and the wall time per MB (ns/MB).
func corpusBench(b *testing.B, each func(corpusFile)) {
	files := loadCorpus(b)
	bytes := corpusBytes(files)
	b.SetBytes(bytes)
	b.ResetTimer()
	start, wall, n := cpuTime(), time.Now(), 0
	for b.Loop() {
		for _, f := range files {
			each(f)
		}
		n++
	}
	mb := float64(bytes) * float64(n) / 1e6
	b.ReportMetric(float64(cpuTime()-start)/mb, "cpu-ns/MB")
	b.ReportMetric(float64(time.Since(wall))/mb, "ns/MB")
}

// BenchmarkLoadCorpus is the load without the lint, BenchmarkLoadCorpusLinted
// with it, BenchmarkLintCorpus the lint alone.
func BenchmarkLoadCorpus(b *testing.B) {
	corpusBench(b, func(f corpusFile) { load(b, f) })
}

func BenchmarkLoadCorpusLinted(b *testing.B) {
	corpusBench(b, func(f corpusFile) { lint.Check(string(load(b, f))) })
}

func BenchmarkLintCorpus(b *testing.B) {
	corpusBench(b, func(f corpusFile) { lint.Check(string(f.raw)) })
}
