package registry

import (
	"github.com/iii-hq/skills-go/internal/lint"
)

// lintNote is a flagged entry's finding as skills::list and prompts::list
// note it under lint.flagged: note (docs/decisions.md D65): the rule and
// the line, not the excerpt, so a listing never repeats the flagged text.
// The field is absent from unflagged entries, which stay byte for byte
// as 0.2 lists them.
type lintNote struct {
	Rule string `json:"rule"`
	Line int    `json:"line"`
}

// lintNotes are the notes of report, or nil when it is clean or the mode
// is not note.
func (r *Registry) lintNotes(report *lint.Report) []lintNote {
	if report == nil || r.view.Flagged() != lint.Note {
		return nil
	}
	notes := make([]lintNote, len(report.Findings))
	for i, f := range report.Findings {
		notes[i] = lintNote{Rule: f.Rule, Line: f.Line}
	}
	return notes
}

// lintNotesBytes bounds the encoded size of notes from above.
func lintNotesBytes(notes []lintNote) int {
	if len(notes) == 0 {
		return 0
	}
	n := len(`,"lint":[]`)
	for _, x := range notes {
		n += len(`{"rule":"","line":},`) + len(x.Rule) + 20
	}
	return n
}
