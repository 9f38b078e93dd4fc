package catalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/offered"
	"github.com/iii-hq/skills-go/internal/requires"
)

// availView is a view over a folder of skills and a stored one, judged
// against fns in mode.
func availView(t *testing.T, fns *offered.Functions, mode requires.Mode) *View {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "skills/status.md", "# Status\n\nRead [the status](iii://fn/acme/status).\n")
	writeFile(t, dir, "skills/plain.md", "# Plain\n")
	writeFile(t, dir, "skills/report.md", "---\nrequires:\n  skills: [status]\n---\n# Report\n")
	v := NewView(ViewConfig{Caller: catalogtest.NewState(), SkillsScope: "skills", PromptsScope: "prompts", Timeout: time.Second,
		Source: fsource.New(dir, []string{"skills/*.md"}, nil), Functions: fns, Unavailable: mode})
	if err := v.PutSkill(t.Context(), SkillRow{ID: "stored", RegisteredAt: "t",
		Skill: "---\nmetadata:\n  iii-requires-functions: acme::refund\n---\n# Stored\n"}); err != nil {
		t.Fatal(err)
	}
	return v
}

// marks renders each entry as id or id(missing), in order.
func marks(skills []Skill) string {
	var out []string
	for _, s := range skills {
		if s.Unavailable != nil {
			out = append(out, s.ID+"("+s.Unavailable.String()+")")
		} else {
			out = append(out, s.ID)
		}
	}
	return strings.Join(out, " ")
}

func TestViewMarksSkillsWhoseFunctionsAreNotOffered(t *testing.T) {
	fns := offered.New()
	v := availView(t, fns, "")
	listed := func() string {
		t.Helper()
		l, err := v.Skills(t.Context())
		if err != nil || len(l.Hidden) != 0 {
			t.Fatalf("listing: %v, hidden %q", err, marks(l.Hidden))
		}
		return marks(l.Skills)
	}
	if got := listed(); got != "plain report status stored" {
		t.Errorf("before the engine's list: %q, want nothing marked", got)
	}
	fns.Set(map[string]bool{"acme::refund": true})
	if got, want := listed(), "plain report(skill status) status(function acme::status) stored"; got != want {
		t.Errorf("without acme::status: %q, want %q", got, want)
	}
	fns.Set(map[string]bool{"acme::status": true})
	if got, want := listed(), "plain report status stored(function acme::refund)"; got != want {
		t.Errorf("with acme::status alone: %q, want %q", got, want)
	}
	if body, found, err := v.Body(t.Context(), "stored"); err != nil || !found || !strings.Contains(body, "# Stored") {
		t.Errorf("a marked skill's read = %v %v, want it served", found, err)
	}
}

func TestViewHidesUnavailableSkillsAndRefusesTheirReads(t *testing.T) {
	fns := offered.New()
	fns.Set(map[string]bool{"acme::refund": true})
	v := availView(t, fns, requires.Hide)
	l, err := v.Skills(t.Context())
	if err != nil || marks(l.Skills) != "plain stored" || marks(l.Hidden) != "report(skill status) status(function acme::status)" {
		t.Fatalf("listed %q hidden %q (%v)", marks(l.Skills), marks(l.Hidden), err)
	}
	for id, want := range map[string]string{
		"status": "Skill status is unavailable: what it requires is missing now (function acme::status); unavailable is hide",
		"report": "Skill report is unavailable: what it requires is missing now (skill status); unavailable is hide",
	} {
		if _, _, err := v.Body(t.Context(), id); contract.CodeOf(err) != contract.CodeUnavailable || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Body(%s) = %v, want unavailable %q", id, err, want)
		}
	}
	fns.Set(map[string]bool{"acme::refund": true, "acme::status": true})
	if body, found, err := v.Body(t.Context(), "report"); err != nil || !found || !strings.Contains(body, "# Report") {
		t.Errorf("once acme::status is offered, Body(report) = %v %v", found, err)
	}
	if l, _ := v.Skills(t.Context()); marks(l.Skills) != "plain report status stored" || len(l.Hidden) != 0 {
		t.Errorf("once offered: listed %q hidden %q", marks(l.Skills), marks(l.Hidden))
	}
}

// A function list that changes wakes Next: the search index and other
// followers re-read the view.
func TestViewNextFollowsTheFunctionList(t *testing.T) {
	fns := offered.New()
	v := availView(t, fns, "")
	since := v.Version()
	got := make(chan Version, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		ver, _ := v.Next(ctx, since)
		got <- ver
	}()
	fns.Set(map[string]bool{})
	select {
	case ver := <-got:
		if ver == since {
			t.Error("Next returned the version it was given")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next did not return after the function list changed")
	}
}

// Differential: on random skills requiring random functions and skills
// (cycles included), the judgement equals a rebuild from its definition:
// a skill is available exactly when its functions are offered and every
// skill it requires is served and available, computed here by walking
// the requirements from scratch.
func TestJudgeAvailabilityAgreesWithItsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + rng.IntN(12)
		texts := map[string]string{}
		var skills []Skill
		for i := range n {
			id := fmt.Sprintf("s%02d", i)
			var b strings.Builder
			b.WriteString("---\nrequires:\n  skills: [")
			for range rng.IntN(3) {
				fmt.Fprintf(&b, "s%02d, ", rng.IntN(n+2)) // some never served
			}
			b.WriteString("]\n---\n# X\n")
			for range rng.IntN(3) {
				fmt.Fprintf(&b, "iii://fn/f/n%d\n", rng.IntN(4))
			}
			texts[id] = b.String()
			skills = append(skills, Skill{ID: id, Meta: MetaOf(id, b.String())})
		}
		offer := map[string]bool{}
		for i := range 4 {
			offer[fmt.Sprintf("f::n%d", i)] = rng.IntN(2) == 0
		}
		fns := offered.New()
		fns.Set(offer)
		JudgeAvailability(skills, fns.Snapshot())

		byID := map[string]Skill{}
		for _, s := range skills {
			byID[s.ID] = s
		}
		// available: the greatest set where each member's functions are
		// offered and its required skills are members.
		avail := map[string]bool{}
		for _, s := range skills {
			avail[s.ID] = true
		}
		for changed := true; changed; {
			changed = false
			for _, s := range skills {
				if !avail[s.ID] || s.Requires == nil {
					continue
				}
				ok := true
				for _, f := range s.Requires.Functions {
					ok = ok && offer[f]
				}
				for _, r := range s.Requires.Skills {
					ok = ok && avail[r]
				}
				if !ok {
					avail[s.ID], changed = false, true
				}
			}
		}
		for _, s := range skills {
			if (s.Unavailable == nil) != avail[s.ID] {
				t.Fatalf("round %d: %s judged %v, definition says available=%v\n%s", round, s.ID, s.Unavailable, avail[s.ID], texts[s.ID])
			}
		}
	}
}
