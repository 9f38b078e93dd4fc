package catalog

import "github.com/iii-hq/skills-go/internal/usage"

// Usage is the counter every surface counts its answers in, once per
// answer (docs/decisions.md D84): the view is the one door to content,
// so the counts of all surfaces meet here.
func (v *View) Usage() *usage.Counter { return v.usage }

// NoteListed counts one answer that listed every skill of l. Answers
// from one listing version are counted against it and its ids read once
// per fold (usage.Counter.Listed), so a listing answer costs one
// counter however many skills it lists; surface tells the surfaces'
// listings apart.
func (v *View) NoteListed(surface string, l Listing) {
	v.NoteListedOf(surface, l, l.IDs)
}

// NoteListedOf counts one answer rendered from l that listed the ids
// ids returns (a part of l's: the index leaves out what its budget
// cuts), read once per listing version as NoteListed reads them.
func (v *View) NoteListedOf(surface string, l Listing, ids func() []string) {
	type listed struct {
		surface string
		version any
	}
	var key any
	if version, ok := l.Version(); ok {
		key = listed{surface, version}
	}
	v.usage.Listed(key, ids)
}

// IDs are the ids of the skills l serves, sorted.
func (l Listing) IDs() []string {
	out := make([]string, len(l.Skills))
	for i, s := range l.Skills {
		out[i] = s.ID
	}
	return out
}
