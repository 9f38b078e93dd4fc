package usage

import (
	"maps"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/paging"
)

// pageList is the name skills::usage's cursors carry (docs/decisions.md
// D43): a cursor of another list is refused.
const pageList = "usage"

// Entry kinds, in the order a paged answer lists them; a key is the kind,
// ":" and the row's id (a kind has no ":", so a function id's "::" stays
// whole).
const (
	entrySkill       = "skill"
	entrySection     = "section"
	entryNeverOpened = "never_opened"
)

// page cuts rep to the page cursor names when size > 0 (D87, D43). The
// answer's entries are one list: the skills' rows by id, then the
// sections' by function id, then never_opened; a page holds size of
// them, each in its field, and nextCursor when more follow. Replicas,
// counted_since and unavailable are the whole answer's, on every page.
// With size 0 the answer is whole and a cursor is ignored, as D43's
// lists do.
func page(rep Report, cursor *string, size int) (Report, error) {
	if size <= 0 {
		return rep, nil
	}
	keys := make([]string, 0, len(rep.Skills)+len(rep.Sections)+len(rep.NeverOpened))
	for _, kind := range []struct {
		name string
		ids  []string
	}{
		{entrySkill, slices.Sorted(maps.Keys(rep.Skills))},
		{entrySection, slices.Sorted(maps.Keys(rep.Sections))},
		{entryNeverOpened, rep.NeverOpened},
	} {
		for _, id := range kind.ids {
			keys = append(keys, kind.name+":"+id)
		}
	}
	start, end, next, err := paging.Cut(pageList, keys, cursor, size)
	if err != nil {
		return Report{}, err
	}
	out := rep
	out.Skills, out.Sections, out.NeverOpened, out.NextCursor = map[string]Row{}, map[string]Row{}, []string{}, next
	for _, k := range keys[start:end] {
		kind, id, _ := strings.Cut(k, ":")
		switch kind {
		case entrySkill:
			out.Skills[id] = rep.Skills[id]
		case entrySection:
			out.Sections[id] = rep.Sections[id]
		default:
			out.NeverOpened = append(out.NeverOpened, id)
		}
	}
	return out, nil
}
