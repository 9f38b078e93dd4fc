package catalog

import (
	"context"
	"slices"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/offered"
	"github.com/iii-hq/skills-go/internal/requires"
)

// Skills checked against the live engine (docs/decisions.md D85): each
// listing judges every skill's requirements (Meta.Requires) against the
// engine's function list as the worker last listed it and against the
// skills the listing serves, and unavailable decides what an unmet one
// becomes: marked on every surface, or left out of them (Listing.Hidden
// keeps it for diagnostics) with a point read refused.

// JudgeAvailability sets each entry's Unavailable. skills is sorted by id.
// Every listing judges its entries with it; skills doctor judges files.
// A required skill counts as missing when no entry serves it or its own
// requirements are unmet, so a skill is available only when everything
// it reaches through its requirements is; the judgement runs until it
// settles (it only ever adds what is missing, so it ends, cycles
// included: two skills requiring each other are judged by the rest).
func JudgeAvailability(skills []Skill, fns offered.Snapshot) {
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
				if served, ok := skillByID(skills, req); ok && served.Unavailable == nil {
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
	if v.unavailable != requires.Hide {
		return nil
	}
	l, err := v.Skills(ctx)
	if err != nil {
		return nil
	}
	hidden, ok := l.HiddenSkill(id)
	if !ok {
		return nil
	}
	return contract.Unavailablef("Skill %s is unavailable: what it requires is missing now (%s); unavailable is hide, and skills::diagnostics lists what each skill lacks",
		ids.Unquoted(id), hidden.Unavailable)
}

// Unavailable is the view's unavailable mode.
func (v *View) Unavailable() requires.Mode { return v.unavailable }

// Offered is the engine's function list the listings judge against now.
func (v *View) Offered() offered.Snapshot { return v.functions.Snapshot() }

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
