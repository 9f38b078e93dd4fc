package registry

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// An index answer counts as listed the skills it has a bullet for, not
// those its budget folded (docs/decisions.md D84, D44).
func TestIndexCountsTheSkillsItShows(t *testing.T) {
	ids := []string{"acme", "acme/billing", "acme/billing/refunds", "acme/onboarding", "beta", "gamma/x/y"}
	l := catalog.Listing{}
	for _, id := range ids {
		l.Skills = append(l.Skills, catalog.Skill{ID: id})
	}
	state := budgetBullets(ids...)
	top := foldDepth(foldDepth(foldDepth(state, 3), 2), 1)
	text := renderBudgeted(state, nil, (len(renderBullets(top, nil, 0))+3)/4, 0)
	if diff := cmp.Diff([]string{"acme", "beta"}, indexedIDs(text, l)); diff != "" {
		t.Errorf("ids of the folded index (-want +got):\n%s\n%s", diff, text)
	}
	if got := indexedIDs(renderBullets(state, nil, 0), l); !slices.Equal(got, ids) {
		t.Errorf("ids of the whole index = %v; want %v", got, ids)
	}
}

// Each surface counts once per answer: the read and the fetch of a
// skill, the section a fetch served, and the skills of a listing
// (docs/decisions.md D84); a failed read counts nothing.
func TestSurfacesCountTheirAnswers(t *testing.T) {
	f := newFixture(t, nil)
	f.engine.returns("acme::status", `"all green"`)
	if _, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: "pg/backup", Skill: "# Backups\n\nTake one."}); err != nil {
		t.Fatal(err)
	}
	uri := "iii://pg/backup"
	if _, err := f.reg.resourcesRead(f.ctx, readResourceInput{URI: &uri}); err != nil {
		t.Fatal(err)
	}
	missing := "iii://pg/nothing"
	if _, err := f.reg.resourcesRead(f.ctx, readResourceInput{URI: &missing}); err == nil {
		t.Fatal("a read of nothing succeeded")
	}
	if _, err := f.reg.fetch(f.ctx, fetchSkillInput{URIs: []string{uri, uri, "iii://fn/acme/status"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.resourcesList(f.ctx, listInput{}); err != nil {
		t.Fatal(err)
	}
	rec := f.reg.View().Usage().Record("r")
	got := rec.Skills["pg/backup"]
	if got.Read != 1 || got.Fetched != 1 || got.Listed != 1 || len(rec.Skills) != 1 || rec.Sections["acme::status"].Served != 1 {
		t.Errorf("usage = %+v; want pg/backup read, fetched and listed once, nothing else, acme::status served once", rec)
	}
	if got.FirstUsed.IsZero() || got.LastUsed.Before(got.FirstUsed) || time.Since(got.LastUsed) > time.Minute {
		t.Errorf("first %v, last %v; want both set, in order, just now", got.FirstUsed, got.LastUsed)
	}
}
