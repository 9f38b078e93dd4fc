package registry

import (
	"context"
	"strings"

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
			r.view.NoteListed(listedByIndex, l)
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
