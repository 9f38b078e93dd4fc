package catalog

import (
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/lint"
)

// The content checks in the view (docs/decisions.md D65): every skill and
// prompt is linted where its content enters the view (MetaOf for a stored
// row, fileMetaOf and readPrompt once per file Stamp, lintPrompt for a
// stored prompt), and lint.flagged decides what a flagged one becomes.
// Under withhold the listings leave it out (Listing.Withheld keeps it for
// diagnostics) and a point read is refused, naming the rule; a point read
// lints what it would serve, so a change since the listing is caught too.

// Flagged is lint.flagged: what the view does with flagged content.
func (v *View) Flagged() lint.Mode { return v.flagged }

// LintNote is a flagged entry's finding as the listings note it under
// lint.flagged: note (docs/decisions.md D65): the rule and the line, not
// the excerpt, so a listing never repeats the flagged text.
type LintNote struct {
	Rule string `json:"rule"`
	Line int    `json:"line"`
}

// LintNotes are the notes of report, or nil when it is clean or the mode
// is not note: the one place the notes are made, for skills::list and
// prompts::list (their lint field) and for the MCP listings (LintMeta).
func (v *View) LintNotes(report *lint.Report) []LintNote {
	if report == nil || v.flagged != lint.Note {
		return nil
	}
	notes := make([]LintNote, len(report.Findings))
	for i, f := range report.Findings {
		notes[i] = LintNote{Rule: f.Rule, Line: f.Line}
	}
	return notes
}

// LintMeta is the _meta object of an MCP listing's entry for report:
// {contract.MetaKeyLint: LintNotes(report)}, or nil (no _meta at all,
// so an unflagged entry is as before) when there are no notes.
func (v *View) LintMeta(report *lint.Report) map[string]any {
	notes := v.LintNotes(report)
	if notes == nil {
		return nil
	}
	return map[string]any{contract.MetaKeyLint: notes}
}

// withhold splits entries, keeping their order, into those served and
// those flagged.
func withhold[T any](entries []T, flagged func(T) bool) (served, held []T) {
	served = entries[:0:0]
	for _, e := range entries {
		if flagged(e) {
			held = append(held, e)
		} else {
			served = append(served, e)
		}
	}
	return served, held
}

// refuseSkill is the error of a point read of skill id under withhold
// when its content is flagged (report is called only then), else nil.
func (v *View) refuseSkill(id string, report func() *lint.Report) error {
	if v.flagged != lint.Withhold {
		return nil
	}
	return refusal("Skill", ids.Unquoted(id), report())
}

// refusePrompt is refuseSkill for a prompt.
func (v *View) refusePrompt(name string, report func() *lint.Report) error {
	if v.flagged != lint.Withhold {
		return nil
	}
	return refusal("Prompt", name, report())
}

// refusal names the rule and line, never the flagged text: the caller
// is the agent the content was withheld from.
func refusal(kind, key string, r *lint.Report) error {
	if r == nil {
		return nil
	}
	f := r.First()
	return contract.Forbiddenf("%s %s is withheld: the content check %s flagged line %d (rules: %s); lint.flagged is withhold, and skills::diagnostics lists the findings",
		kind, key, f.Rule, f.Line, strings.Join(r.Rules(), ", "))
}

// fileLint is the lint of a listed skill file: the listing's when the
// file is unchanged since, else read now.
func (v *View) fileLint(f fsource.Skill) *lint.Report {
	if m, ok := v.skillMetas.get(f.Path, f.Stamp); ok {
		return m.Lint
	}
	return fileMetaOf(f, v.src).Lint
}

// lintPrompt lints what a stored prompt tells an agent: its description,
// then each argument's description on a line of its own.
func lintPrompt(row PromptRow) *lint.Report {
	text := row.Description
	for _, a := range row.Arguments {
		if a.Description != nil {
			text += "\n" + *a.Description
		}
	}
	return lint.Check(text)
}

// RefuseFile is the refusal of a skill file read outside the view's own
// reads (the v0.3 roots functions, which scan roots themselves) under
// withhold, when its bytes raw are flagged; else nil.
func (v *View) RefuseFile(id string, raw []byte) error {
	return v.refuseSkill(id, func() *lint.Report { return lint.Check(string(raw)) })
}
