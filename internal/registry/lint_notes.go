package registry

import (
	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/lint"
)

// lintNotes are the notes skills::list and prompts::list give a flagged
// entry under lint.flagged: note (docs/decisions.md D65), made by the
// view (catalog.View.LintNotes); nil when report is clean or the mode is
// not note. The field is absent from unflagged entries, which stay byte
// for byte as 0.2 lists them.
func (r *Registry) lintNotes(report *lint.Report) []catalog.LintNote {
	return r.view.LintNotes(report)
}

// lintNotesBytes bounds the encoded size of notes from above.
func lintNotesBytes(notes []catalog.LintNote) int {
	if len(notes) == 0 {
		return 0
	}
	n := len(`,"lint":[]`)
	for _, x := range notes {
		n += len(`{"rule":"","line":},`) + len(x.Rule) + 20
	}
	return n
}
