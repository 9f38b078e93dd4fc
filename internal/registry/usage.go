package registry

import (
	"context"
	"strings"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
)

// Surfaces whose listings are counted apart (docs/decisions.md D84): a
// listing version answered by two surfaces is two listings.
const (
	listedBySkillsList = contract.FnSkillsList
	listedByIndex      = IndexURI
)

// How a read is counted: on its own (skills::resources-read) or as part
// of a skill::fetch answer.
type readStage bool

const (
	stageRead    readStage = false
	stageFetched readStage = true
)

// noteRead counts one answer that served u, once per answer, by what
// it names (D84): a skill's body is read or fetched, an iii://fn/…
// section served, the index a listing. It runs once the answer is
// built, so a failed read counts nothing.
func (r *Registry) noteRead(ctx context.Context, u URI, stage readStage) {
	counter := r.view.Usage()
	switch u.Kind {
	case KindIndex:
		if l, err := r.skillListing(ctx); err == nil {
			r.noteIndexed(l)
		}
	case KindSection:
		counter.Section(u.FunctionID)
	case KindSkill:
		if stage == stageFetched {
			counter.Fetched(u.Key)
		} else {
			counter.Read(u.Key)
		}
	}
}

// noteListedResources counts one skills::resources-list answer: the
// skills among its resources (the index resource is not one).
func (r *Registry) noteListedResources(page []resource) {
	r.view.Usage().Listed(nil, func() []string {
		out := make([]string, 0, len(page))
		for _, res := range page {
			if res.URI == IndexURI {
				continue
			}
			if id, ok := strings.CutPrefix(res.URI, contract.Scheme); ok {
				out = append(out, id)
			}
		}
		return out
	})
}

// noteIndexed counts one index answer rendered from l: the skills it
// has a bullet for, which the budgets may make fewer than l's (D44,
// D26). A folded group's skills are left out: the index names only
// their parent.
func (r *Registry) noteIndexed(l catalog.Listing) {
	r.view.NoteListedOf(listedByIndex, l, func() []string { return indexedIDs(r.indexOf(l, nil), l) })
}

// indexedIDs are the ids of l's skills that have a bullet in the index
// text, each line's `- [`id`](iii://id)`, in the order of the text.
func indexedIDs(text string, l catalog.Listing) []string {
	var out []string
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(strings.TrimLeft(line, " "), "- [`")
		if !ok {
			continue
		}
		id, _, ok := strings.Cut(rest, "`](")
		if _, served := l.Skill(id); ok && served {
			out = append(out, id)
		}
	}
	return out
}
