package registry

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
)

// With page_size, resources-list pages through every entry in order with
// nextCursor; a page is not shifted by changes elsewhere in the list; a
// cursor whose entry has gone is stale (D43).
func TestResourcesListPages(t *testing.T) {
	f := newFixture(t, nil)
	setBudget(f.reg, func(b *Budgets) { b.PageSize = 2 })
	for _, id := range []string{"a", "b", "c", "d"} {
		f.mustRegisterSkill(t, id, "# "+strings.ToUpper(id))
	}
	var uris []string
	var cursor *string
	for pages := 0; ; pages++ {
		out, err := f.reg.resourcesList(f.ctx, listInput{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Resources) > 2 || pages > 5 {
			t.Fatalf("page %d: %+v", pages, out)
		}
		for _, r := range out.Resources {
			uris = append(uris, r.URI)
		}
		if out.NextCursor == "" {
			break
		}
		next := out.NextCursor
		cursor = &next
		if pages == 0 {
			f.mustRegisterSkill(t, "0-first", "# Sorted before every other") // lands on a page already read
		}
	}
	if got := strings.Join(uris, " "); got != "iii://skills iii://a iii://b iii://c iii://d" {
		t.Errorf("pages gave %s", got)
	}

	first, _ := f.reg.resourcesList(f.ctx, listInput{})
	if _, err := f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: "0-first"}); err != nil {
		t.Fatal(err)
	}
	_, err := f.reg.resourcesList(f.ctx, listInput{Cursor: &first.NextCursor})
	if msg, code := errText(err); code != contract.CodeInvalidArgument || !strings.Contains(msg, `stale cursor: "iii://0-first" is no longer in the list`) {
		t.Errorf("a stale cursor: %s %q", code, msg)
	}
}

// Cursors that are garbage or from the other list are refused with what
// to do; without page_size a cursor is ignored, as 0.2 did.
func TestCursorErrors(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "a", "# A")
	if _, err := f.reg.registerPrompt(f.ctx, registerPromptInput{Name: "p1", Description: "One", FunctionID: "x::one"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.registerPrompt(f.ctx, registerPromptInput{Name: "p2", Description: "Two", FunctionID: "x::two"}); err != nil {
		t.Fatal(err)
	}
	garbage := "!!not-a-cursor"
	unpadded := base64.RawURLEncoding.EncodeToString([]byte(`{"list":"resources"}`))
	if out, err := f.reg.resourcesList(f.ctx, listInput{Cursor: &garbage}); err != nil || len(out.Resources) != 2 || out.NextCursor != "" {
		t.Errorf("without page_size a cursor must be ignored: %+v, %v", out, err)
	}
	setBudget(f.reg, func(b *Budgets) { b.PageSize = 1 })
	prompts, err := f.reg.mcpListPrompts(f.ctx, listInput{})
	if err != nil || len(prompts.Prompts) != 1 || prompts.NextCursor == "" {
		t.Fatalf("first prompts page: %+v, %v", prompts, err)
	}
	for cursor, want := range map[string]string{
		garbage:            "is not one this worker gave out; pass the nextCursor of the previous page, or no cursor for the first page",
		unpadded:           "is not one this worker gave out",
		prompts.NextCursor: "cursor is for the prompts list, not the resources list",
	} {
		_, err := f.reg.resourcesList(f.ctx, listInput{Cursor: &cursor})
		if msg, code := errText(err); code != contract.CodeInvalidArgument || !strings.Contains(msg, want) {
			t.Errorf("cursor %q: %s %q, want %q", cursor, code, msg, want)
		}
	}
	rest, err := f.reg.mcpListPrompts(f.ctx, listInput{Cursor: &prompts.NextCursor})
	if err != nil || len(rest.Prompts) != 1 || rest.Prompts[0].Name != "p2" || rest.NextCursor != "" {
		t.Errorf("second prompts page: %+v, %v", rest, err)
	}
}
