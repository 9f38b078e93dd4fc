package registry

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// setBudget changes one of r's budgets.
func setBudget(r *Registry, change func(*Budgets)) {
	b := r.Budgets()
	change(&b)
	r.SetBudgets(b)
}

// New budgets apply to the next answer, also to answers kept per listing
// version: a page size, an index bound and a response budget set while
// the registry serves, with the listing unchanged.
func TestSetBudgetsAppliesToTheNextAnswer(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 6 {
		f.mustRegisterSkill(t, fmt.Sprintf("s%d", i), fmt.Sprintf("# Skill %d\n\n%s", i, strings.Repeat("d", 200)))
	}
	page, err := f.reg.resourcesList(f.ctx, listInput{})
	if err != nil || len(page.Resources) != 7 || page.NextCursor != "" {
		t.Fatalf("resources-list without page_size = %d entries, cursor %q, %v; want 7 and none", len(page.Resources), page.NextCursor, err)
	}
	setBudget(f.reg, func(b *Budgets) { b.PageSize = 2 })
	if page, err = f.reg.resourcesList(f.ctx, listInput{}); err != nil || len(page.Resources) != 2 || page.NextCursor == "" {
		t.Errorf("resources-list after page_size 2 = %d entries, cursor %q, %v; want 2 and a cursor", len(page.Resources), page.NextCursor, err)
	}

	full := string(encodedRead(t, f, IndexURI))
	setBudget(f.reg, func(b *Budgets) { b.MaxResponseBytes = len(full) / 2 })
	if cut := encodedRead(t, f, IndexURI); len(cut) > len(full)/2 {
		t.Errorf("the index read after a smaller max_response_bytes is %d bytes, over the new budget of %d", len(cut), len(full)/2)
	}
	setBudget(f.reg, func(b *Budgets) { b.MaxResponseBytes = 0 })
	if got := f.reg.Budgets().MaxResponseBytes; got != 16<<20 {
		t.Errorf("max_response_bytes 0 = %d, want the 16 MiB default", got)
	}
	if again := string(encodedRead(t, f, IndexURI)); again != full {
		t.Errorf("the index after the budget came back differs from the first")
	}
}

// Budgets may change while handlers answer (go test -race).
func TestSetBudgetsWhileServing(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 5 {
		f.mustRegisterSkill(t, fmt.Sprintf("s%d", i), "# S")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if g == 0 {
					setBudget(f.reg, func(b *Budgets) { b.PageSize, b.IndexMaxTokens = i%3, i%2*10 })
					continue
				}
				if _, err := f.reg.resourcesList(f.ctx, listInput{}); err != nil {
					t.Error(err)
				}
				f.reg.index(f.ctx)
			}
		})
	}
	wg.Wait()
}
