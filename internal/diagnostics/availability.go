package diagnostics

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/offered"
	"github.com/iii-hq/skills-go/internal/requires"
)

// Availability is what the skills require of the live engine and what it
// lacks now (docs/decisions.md D85): the mode (unavailable), whether the
// engine's function list is known and how many functions it offers, how
// many skills require something, each unavailable skill with what it
// lacks, and each requirement entry that could not be read.
type Availability struct {
	Mode           string             `json:"mode"`
	FunctionsKnown bool               `json:"functions_known"`
	Functions      int                `json:"functions"`
	Requiring      int                `json:"requiring"`
	Unavailable    []UnavailableSkill `json:"unavailable"`
	Problems       []RequiresProblem  `json:"requires_problems"`
}

// UnavailableSkill is one skill whose requirements are not met.
type UnavailableSkill struct {
	ID      string            `json:"id"`
	Origin  string            `json:"origin"`
	Path    string            `json:"path,omitempty"`
	Hidden  bool              `json:"hidden,omitempty"` // left out of every listing (unavailable: hide)
	Missing *contract.Missing `json:"missing"`
}

// RequiresProblem is one requirement entry of a skill that is not used: a
// warning naming the skill and the entry; the skill is served all the same.
type RequiresProblem struct {
	ID      string `json:"id"`
	Origin  string `json:"origin"`
	Path    string `json:"path,omitempty"`
	Problem string `json:"problem"`
}

// availabilityOf is the view's Availability: the listed skills and the
// hidden ones, judged as the listing judged them.
func availabilityOf(mode requires.Mode, fns offered.Snapshot, l catalog.Listing) *Availability {
	a := newAvailability(mode, fns)
	for _, group := range []struct {
		skills []catalog.Skill
		hidden bool
	}{{l.Skills, false}, {l.Hidden, true}, {l.Withheld, false}} {
		for _, s := range group.skills {
			a.add(s.ID, s.Origin, s.File.Path, group.hidden, s.Requires, s.Unavailable)
		}
	}
	a.sort()
	return a
}

func newAvailability(mode requires.Mode, fns offered.Snapshot) *Availability {
	return &Availability{Mode: string(mode), FunctionsKnown: fns.Known, Functions: fns.Len(),
		Unavailable: []UnavailableSkill{}, Problems: []RequiresProblem{}}
}

// add counts one skill.
func (a *Availability) add(id, origin, path string, hidden bool, r *requires.Set, missing *contract.Missing) {
	if r != nil && len(r.Functions)+len(r.Skills) > 0 {
		a.Requiring++
	}
	if missing != nil {
		a.Unavailable = append(a.Unavailable, UnavailableSkill{ID: id, Origin: origin, Path: path, Hidden: hidden, Missing: missing})
	}
	if r != nil {
		for _, p := range r.Problems {
			a.Problems = append(a.Problems, RequiresProblem{ID: id, Origin: origin, Path: path, Problem: p})
		}
	}
}

func (a *Availability) sort() {
	slices.SortStableFunc(a.Unavailable, func(x, y UnavailableSkill) int { return strings.Compare(x.ID, y.ID) })
	slices.SortStableFunc(a.Problems, func(x, y RequiresProblem) int { return strings.Compare(x.ID, y.ID) })
}

// AvailabilityFiles is skills doctor's Availability of the files a scan
// found, judged against fns (the zero Snapshot when doctor asked no
// engine: then only the requirement problems are reported). Only the
// required functions are judged: a required skill may be one a worker
// registers, which a scan of files cannot know.
func AvailabilityFiles(src FileReader, s Scan, mode requires.Mode, fns offered.Snapshot) *Availability {
	a := newAvailability(mode, fns)
	skills := make([]catalog.Skill, 0, len(s.Skills))
	read := make(map[string]*requires.Set, len(s.Skills))
	for _, sk := range s.Skills {
		var judged *requires.Set
		if raw, _, _ := src.ReadSkill(sk.Path); raw != nil {
			if r := requires.Of(string(raw)); r != nil {
				read[sk.ID] = r
				judged = &requires.Set{Functions: r.Functions}
			}
		}
		skills = append(skills, catalog.Skill{ID: sk.ID, Origin: catalog.OriginFS, File: sk, Meta: catalog.Meta{Requires: judged}})
	}
	slices.SortFunc(skills, func(x, y catalog.Skill) int { return strings.Compare(x.ID, y.ID) })
	catalog.JudgeAvailability(skills, fns)
	for _, sk := range skills {
		a.add(sk.ID, sk.Origin, sk.File.Path, false, read[sk.ID], sk.Unavailable)
	}
	a.sort()
	return a
}

// writeText prints the section of the text report; nothing when no skill
// requires anything and nothing is wrong.
func (a *Availability) writeText(w io.Writer) {
	if a == nil || a.Requiring == 0 && len(a.Problems) == 0 {
		return
	}
	known := "the engine's functions not checked (give --url to check them)"
	if a.FunctionsKnown {
		known = fmt.Sprintf("checked against the engine's %d functions", a.Functions)
	}
	who := fmt.Sprintf("%d skills require", a.Requiring)
	if a.Requiring == 1 {
		who = "1 skill requires"
	}
	fmt.Fprintf(w, "REQUIREMENTS: %s functions or skills; %s; %d unavailable (unavailable: %s)\n",
		who, known, len(a.Unavailable), a.Mode)
	for _, u := range a.Unavailable {
		fmt.Fprintf(w, "  %s  unavailable: %s\n", u.ID, u.Missing)
	}
	for _, p := range a.Problems {
		fmt.Fprintf(w, "  %s  warning: %s\n", p.ID, p.Problem)
	}
}

// LogRequires logs, once the catalog has its scopes, each requirement
// entry that could not be read (the first lintLogged of them): the
// warning the boot log gives, naming the skill and the entry (D85).
func (d *Diagnoser) LogRequires(ctx context.Context) {
	l, err := d.view.Skills(ctx)
	if err != nil {
		return
	}
	a := availabilityOf(d.view.Unavailable(), d.view.Offered(), l)
	for i, p := range a.Problems {
		if i == lintLogged {
			d.log.Warn("more requirement entries not read; skills::diagnostics lists them all", zap.Int("not_logged", len(a.Problems)-i))
			break
		}
		d.log.Warn("a requirement of a skill is not read; the skill is served", zap.String("id", p.ID), zap.String("origin", p.Origin),
			zap.String("path", p.Path), zap.String("problem", p.Problem))
	}
}
