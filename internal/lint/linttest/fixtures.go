// Package linttest is the content checks' fixture set: hostile skills,
// one per rule and a combination, with the findings each must get, and
// clean text that must get none. The lint's own tests read them as text;
// the worker's load them through registration and through files.
package linttest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/iii-hq/skills-go/internal/lint"
)

// At is a finding without its detail: the rule and the line.
type At struct {
	Rule string
	Line int
}

// Hostile are the files of testdata/hostile with the findings of each, in
// line order.
var Hostile = map[string][]At{
	"bidi-override.md":           {{lint.RuleBidi, 4}},
	"zero-width.md":              {{lint.RuleInvisible, 5}},
	"tag-characters.md":          {{lint.RuleTag, 2}},
	"private-use.md":             {{lint.RulePrivateUse, 3}},
	"control-escape.md":          {{lint.RuleControl, 3}},
	"injection-ignore.md":        {{lint.RuleAgentInstruction, 7}},
	"injection-system-prompt.md": {{lint.RuleAgentInstruction, 3}},
	"injection-hide.md":          {{lint.RuleAgentInstruction, 4}},
	"injection-persona.md":       {{lint.RuleAgentInstruction, 3}},
	"exfiltration.md":            {{lint.RuleAgentInstruction, 3}},
	"credential-paths.md": {{lint.RuleCredentialPath, 3}, {lint.RuleCredentialPath, 4}, {lint.RuleCredentialPath, 5},
		{lint.RuleCredentialPath, 6}, {lint.RuleCredentialPath, 7}, {lint.RuleCredentialPath, 8}, {lint.RuleCredentialPath, 9}},
	"curl-sh.md":              {{lint.RuleDownloadExec, 4}},
	"wget-bash.md":            {{lint.RuleDownloadExec, 3}},
	"process-substitution.md": {{lint.RuleDownloadExec, 3}},
	"iwr-iex.md":              {{lint.RuleDownloadExec, 3}},
	"base64-sh.md":            {{lint.RuleDownloadExec, 3}},
	"combination.md":          {{lint.RuleBidi, 7}, {lint.RuleAgentInstruction, 8}, {lint.RuleDownloadExec, 9}},
}

// BigFrontmatter is issue 27's case: a skill whose frontmatter is 2.2 MB.
// It is generated, not committed; its one finding is frontmatter-size on
// line 1.
func BigFrontmatter() string {
	return "---\nname: big\ndescription: " + strings.Repeat("a", 2200000) + "\n---\n# Big\n"
}

// Dir is the folder of one fixture set, "hostile" or "clean".
func Dir(set string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", set)
}

// Read returns the text of one fixture.
func Read(set, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(Dir(set), name))
	return string(b), err
}

// Of is a report's findings without their details.
func Of(r *lint.Report) []At {
	if r == nil {
		return nil
	}
	out := make([]At, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = At{f.Rule, f.Line}
	}
	return out
}
