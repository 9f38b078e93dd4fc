package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/offered"
)

// Skills checked against the live engine (docs/decisions.md D85): each
// listing judges every skill's requirements (Meta.Requires) against the
// engine's function list as the worker last listed it and against the
// skills the listing serves, and unavailable decides what an unmet one
// becomes: marked on every surface, or left out of them (Listing.Hidden
// keeps it for diagnostics) with a point read refused.

// UnavailableMode is the config key unavailable: what the view does with
// a skill whose requirements are not met.
type UnavailableMode string

// The modes.
const (
	// UnavailableMark serves the skill and marks it, with what it lacks,
	// in the index, the listings and search results. The default.
	UnavailableMark UnavailableMode = "mark"
	// UnavailableHide leaves it out of every listing and refuses a point
	// read with unavailable, naming what it lacks.
	UnavailableHide UnavailableMode = "hide"
)

// UnavailableModes are the values unavailable accepts.
var UnavailableModes = []UnavailableMode{UnavailableMark, UnavailableHide}

// CheckUnavailableMode returns the problem with an unavailable value, or "".
func CheckUnavailableMode(m string) string {
	if slices.Contains(UnavailableModes, UnavailableMode(m)) {
		return ""
	}
	return fmt.Sprintf("`unavailable` must be mark or hide (default %s), got %q", UnavailableMark, m)
}

// judgeAvailability sets each entry's Unavailable. skills is sorted by id.
// A required skill counts as missing when no entry serves it or its own
// requirements are unmet, so a skill is available only when everything
// it reaches through its requirements is; the judgement runs until it
// settles (it only ever adds what is missing, so it ends, cycles
// included: two skills requiring each other are judged by the rest).
func judgeAvailability(skills []Skill, fns offered.Snapshot) {
	var chained []int // entries that require other skills
	for i := range skills {
		r := skills[i].Requires
		if r == nil {
			continue
		}
		var u contract.Missing
		for _, f := range r.Functions {
			if !fns.Has(f) {
				u.Functions = append(u.Functions, f)
			}
		}
		if len(u.Functions) > 0 {
			skills[i].Unavailable = &u
		}
		if len(r.Skills) > 0 {
			chained = append(chained, i)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, i := range chained {
			for _, req := range skills[i].Requires.Skills {
				j, ok := slices.BinarySearchFunc(skills, req, func(s Skill, id string) int { return strings.Compare(s.ID, id) })
				if ok && skills[j].Unavailable == nil {
					continue
				}
				u := skills[i].Unavailable
				if u != nil && slices.Contains(u.Skills, req) {
					continue
				}
				if u == nil {
					u = &contract.Missing{}
				} else {
					u = &contract.Missing{Functions: u.Functions, Skills: slices.Clone(u.Skills)}
				}
				u.Skills = append(u.Skills, req)
				slices.Sort(u.Skills)
				skills[i].Unavailable = u
				changed = true
			}
		}
	}
}

// refuseHidden is the refusal of a point read of id under unavailable:
// hide when the current listing hides it, else nil. Only that mode pays
// for the listing; a listing that fails judges nothing.
func (v *View) refuseHidden(ctx context.Context, id string) error {
	if v.unavailable != UnavailableHide {
		return nil
	}
	l, err := v.Skills(ctx)
	if err != nil {
		return nil
	}
	j, ok := slices.BinarySearchFunc(l.Hidden, id, func(s Skill, id string) int { return strings.Compare(s.ID, id) })
	if !ok {
		return nil
	}
	return contract.Unavailablef("Skill %s is unavailable: it requires %s, which the engine does not offer now; unavailable is hide, and skills::diagnostics lists what each skill lacks",
		ids.Unquoted(id), l.Hidden[j].Unavailable)
}

// Unavailable is the view's unavailable mode.
func (v *View) Unavailable() UnavailableMode { return v.unavailable }

// WithUnavailable is meta with u at contract.MetaKeyUnavailable: the one
// place an MCP listing's entry is marked. meta is returned as it was
// (nil: no _meta at all) for an available skill.
func WithUnavailable(meta map[string]any, u *contract.Missing) map[string]any {
	if u == nil {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[contract.MetaKeyUnavailable] = u
	return meta
}
