package mcpskills

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestMCPSkillsListPages(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	f.ext.SetBudgets(2, f.ext.limits.Load().maxResponse)
	first, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil || len(first.Skills) != 2 || first.NextCursor == "" {
		t.Fatalf("first page = %+v, %v", first, err)
	}
	second, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Cursor: &first.NextCursor})
	if err != nil || len(second.Skills) != 1 || second.NextCursor != "" || second.Skills[0].URI != "skill://team/deploy-guide/SKILL.md" {
		t.Fatalf("second page = %+v, %v", second, err)
	}
	// A limit given overrides page_size; out of range it is refused.
	one := 1
	if out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Limit: &one}); err != nil || len(out.Skills) != 1 || out.NextCursor == "" {
		t.Errorf("limit 1 = %+v, %v", out, err)
	}
	for _, bad := range []int{0, -1, maxSkillsPage + 1} {
		if _, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Limit: &bad}); err == nil {
			t.Errorf("limit %d was accepted", bad)
		}
	}
	garbage := "not-a-cursor"
	if _, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Cursor: &garbage}); err == nil {
		t.Error("a garbage cursor was accepted")
	}
}

// Without page_size or a limit, skills/list still never passes the
// response budget: a page ends before it would, with a cursor to the
// rest, and following the cursors lists every skill once.
func TestMCPSkillsListPagesByBudget(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	for i := range 12 {
		f.mustRegisterSkill(t, fmt.Sprintf("bulk/skill-%02d", i), fmt.Sprintf("# Skill %d\n\nA <b>&</b> \u2028 body %s.\n", i, strings.Repeat("x", 300)))
	}
	all, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil || all.NextCursor != "" || len(all.Skills) != 15 {
		t.Fatalf("with the default budget: %d skills, cursor %q, %v", len(all.Skills), all.NextCursor, err)
	}
	f.ext.SetBudgets(f.ext.limits.Load().pageSize, listEnvelopeBytes+3000)
	seen := map[string]int{}
	pages := 0
	var cursor *string
	for {
		out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		b, _ := json.Marshal(out)
		if len(b) > f.ext.limits.Load().maxResponse {
			t.Errorf("page %d is %d bytes, over the budget of %d", pages, len(b), f.ext.limits.Load().maxResponse)
		}
		for _, s := range out.Skills {
			seen[s.URI]++
		}
		if out.NextCursor == "" {
			break
		}
		if len(out.Skills) == 0 || pages > 20 {
			t.Fatalf("page %d: %d skills, cursor %q", pages, len(out.Skills), out.NextCursor)
		}
		cursor = &out.NextCursor
	}
	if pages < 3 || len(seen) != 15 {
		t.Errorf("%d pages, %d distinct skills; want several pages and all 15", pages, len(seen))
	}
	for uri, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", uri, n)
		}
	}
	// The bound an entry is cut by is never below its encoding, whatever
	// encoding/json escapes.
	odd := mcpSkill{URI: "skill://a&b/<c>/SKILL.md", Frontmatter: json.RawMessage("{\"description\": \"<b>&</b> \u2028 \\\" é\"}"),
		Resources: []mcpSkillFile{{URI: "skill://a&b/<c>/x\u2029.md", Digest: "sha256:00", Size: 1 << 40}}}
	for _, s := range append(all.Skills, odd) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", s.URI, err)
		}
		if s.jsonBound() < len(b) {
			t.Errorf("%s: bound %d below its %d encoded bytes", s.URI, s.jsonBound(), len(b))
		}
	}
}
