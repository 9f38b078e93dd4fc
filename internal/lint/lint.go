// Package lint judges what a skill or prompt tells an agent before the
// worker serves it (docs/decisions.md D65): hidden Unicode, instructions
// aimed at the agent, credential paths, download-and-run lines and an
// oversized frontmatter. Check is pure and reads the text once; the
// content view calls it where content enters, once per stored row and once
// per file Stamp, so every origin is judged by the same rules.
package lint

import (
	"fmt"
	"slices"
	"strings"
)

// Rule names, stable: configs, tests and operators' scripts match on them.
const (
	RuleBidi             = "unicode-bidi"
	RuleInvisible        = "unicode-invisible"
	RuleTag              = "unicode-tag"
	RulePrivateUse       = "unicode-private-use"
	RuleControl          = "unicode-control"
	RuleAgentInstruction = "agent-instruction"
	RuleCredentialPath   = "credential-path"
	RuleDownloadExec     = "download-exec"
	RuleFrontmatterSize  = "frontmatter-size"
)

// Rules are every rule, in the order findings of one line are reported,
// with what each flags (docs/reference.md#content-checks).
var Rules = []struct{ Name, Flags string }{
	{RuleBidi, "bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)"},
	{RuleInvisible, "zero-width and other invisible format characters (Unicode class Cf, U+FEFF except at the start, Hangul fillers, variation selectors 17–256)"},
	{RuleTag, "Unicode tag characters (U+E0000–U+E007F)"},
	{RulePrivateUse, "private-use code points (U+E000–U+F8FF, planes 15 and 16)"},
	{RuleControl, "control characters other than tab, line feed and carriage return, and the line and paragraph separators U+2028, U+2029"},
	{RuleAgentInstruction, "instructions aimed at the agent: ignoring earlier instructions or the system prompt, hiding actions from the user, a new persona or mode, sending secrets away"},
	{RuleCredentialPath, "paths of credentials: SSH keys, cloud and tool credentials, .netrc, .env files read out, /etc/shadow, keychains, browser cookie and password stores"},
	{RuleDownloadExec, "a download piped into a shell or interpreter (curl|sh, bash <(curl …), iwr … | iex, base64 -d | sh)"},
	{RuleFrontmatterSize, fmt.Sprintf("a frontmatter block over %d bytes", MaxFrontmatterBytes)},
}

// MaxFindings bounds the findings a Report keeps of one text; the rest are
// counted in Omitted, so a file of a million hidden characters costs a
// bounded report.
const MaxFindings = 20

// Finding is one rule flagging one line. Detail names what was found: the
// code points as U+XXXX, or a short excerpt of the line with anything not
// printable written as U+XXXX, never raw.
type Finding struct {
	Rule   string `json:"rule"`
	Line   int    `json:"line"`
	Detail string `json:"detail"`
}

// Report is what Check found in one text: at most MaxFindings findings in
// line order, and how many more there were.
type Report struct {
	Findings []Finding `json:"findings"`
	Omitted  int       `json:"omitted,omitempty"`
}

// Rules are the names of the rules that flagged the text, sorted, once each.
func (r *Report) Rules() []string {
	if r == nil {
		return nil
	}
	var names []string
	for _, f := range r.Findings {
		if !slices.Contains(names, f.Rule) {
			names = append(names, f.Rule)
		}
	}
	slices.Sort(names)
	return names
}

// First is the first finding, as a refusal names it.
func (r *Report) First() Finding { return r.Findings[0] }

// add keeps f within MaxFindings.
func (r *Report) add(f Finding) {
	if len(r.Findings) < MaxFindings {
		r.Findings = append(r.Findings, f)
	} else {
		r.Omitted++
	}
}

// Check lints text, a whole skill or prompt file (frontmatter included)
// or a stored body; lines count from 1 at its start. It returns nil when
// no rule flags the text, so clean content costs no report.
func Check(text string) *Report {
	var r Report
	checkFrontmatter(text, &r)
	c := checker{report: &r}
	line := 1
	for rest := text; ; line++ {
		i := strings.IndexByte(rest, '\n')
		cur := rest
		if i >= 0 {
			cur = rest[:i]
		}
		c.line(cur, line, len(rest) == len(text))
		if i < 0 {
			break
		}
		rest = rest[i+1:]
	}
	if len(r.Findings) == 0 && r.Omitted == 0 {
		return nil
	}
	// The frontmatter finding was added first; keep line order.
	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return a.Line - b.Line })
	return &r
}

// checker runs the rules over one line at a time, reusing one buffer for
// the line in lower case.
type checker struct {
	report *Report
	lower  []byte
}

func (c *checker) line(s string, n int, first bool) {
	c.hidden(s, n, first)
	c.phrases(s, n)
}

// appendLower appends s with its ASCII letters in lower case: byte
// offsets stay those of s, so a match in it is an excerpt of s.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		dst = append(dst, b)
	}
	return dst
}

// excerpt is s[lo:hi] widened to whole runes, clipped to 80 bytes, with
// every rune that is not printable written as U+XXXX.
func excerpt(s string, lo, hi int) string {
	const most = 80
	if hi-lo > most {
		hi = lo + most
	}
	for lo > 0 && !utf8Start(s[lo]) {
		lo--
	}
	for hi < len(s) && !utf8Start(s[hi]) {
		hi++
	}
	var b strings.Builder
	for _, r := range s[lo:hi] {
		if visible(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "U+%04X", r)
		}
	}
	return strings.TrimSpace(b.String())
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
