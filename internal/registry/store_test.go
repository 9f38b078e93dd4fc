package registry

import (
	"testing"
)

// TestListSkillsToleratesStateListEnvelopes (docs/reference.md#state-rows):
// state::list results are accepted as "a flat array, or
// {items:[{value:…}]}, or {value:[…]}". The reference (state.rs
// extract_state_entries) takes `items` only when it is an array, falls
// through to `value` otherwise, and drops items that have no `value`.
// Decoding the whole object into one Go struct used to let a single odd
// item, or a non-array `items`, empty the listing.
func TestListSkillsToleratesStateListEnvelopes(t *testing.T) {
	row := `{"id":"a","skill":"# A","registered_at":"2026-01-01T00:00:00+00:00"}`
	tests := []struct{ name, list string }{
		{"items with a non-object entry", `{"items":[{"value":` + row + `},"junk"]}`},
		{"non-array items falls through to value", `{"items":{},"value":[` + row + `]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.engine.returns("state::list", tt.list)
			out, err := f.reg.listSkills(f.ctx, listSkillsInput{})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Skills) != 1 || out.Skills[0].ID != "a" {
				t.Errorf("skills = %+v, want the one row a", out.Skills)
			}
		})
	}
}
