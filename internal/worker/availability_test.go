package worker

import (
	"fmt"
	"testing"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/requires"
)

// turned announces a skill whose judgement changed between two listings,
// whether it is served or hidden in either (unavailable: hide moves it
// between the two), and nothing for a skill only one listing holds or one
// that requires nothing.
func TestTurnedComparesServedAndHiddenSkills(t *testing.T) {
	req := &requires.Set{Functions: []string{"acme::status"}}
	miss := &contract.Missing{Functions: []string{"acme::status"}}
	other := &contract.Missing{Functions: []string{"acme::status", "acme::refund"}}
	skill := func(id string, r *requires.Set, u *contract.Missing) catalog.Skill {
		return catalog.Skill{ID: id, Meta: catalog.Meta{Requires: r}, Unavailable: u}
	}
	before := catalog.Listing{
		Skills: []catalog.Skill{skill("a", req, nil), skill("b", req, miss), skill("c", nil, nil), skill("d", req, miss), skill("gone", req, nil)},
		Hidden: []catalog.Skill{skill("e", req, miss)},
	}
	after := catalog.Listing{
		Skills: []catalog.Skill{skill("b", req, nil), skill("c", nil, nil), skill("d", req, other), skill("e", req, nil), skill("new", req, miss)},
		Hidden: []catalog.Skill{skill("a", req, miss)},
	}
	got := fmt.Sprint(turned(before, after))
	want := fmt.Sprint([]turn{{"b", nil}, {"d", other}, {"e", nil}, {"a", miss}})
	if got != want {
		t.Errorf("turned = %s, want %s", got, want)
	}
}
