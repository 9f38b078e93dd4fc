package registry

import (
	"testing"
)

// Regression tests from a line-by-line review against
// spec/reference-behaviour.md: each pins a statement the code once missed.

// reference-behaviour.md §7.5/§5.1: `skills::resources-read` with
// {"uri": ""} runs parse_uri("") and answers
// "Resource URI must start with iii://: " (serde only says
// "missing field `uri`" when the key is absent), so an explicit "" is
// not reported as missing.
func TestReviewResourcesReadExplicitEmptyURI(t *testing.T) {
	f := newFixture(t, nil)
	_, err := call(t, f.reg, FnSkillsResourcesRead, `{"uri":""}`)
	msg, code := errText(err)
	if want := "Resource URI must start with iii://: "; msg != want || code != CodeInvalidArgument {
		t.Errorf("error = %q (%s), want %q (%s)", msg, code, want, CodeInvalidArgument)
	}
}

// reference-behaviour.md §5.2 step 3: anything that is not a string or
// {content: string} is "pretty-printed JSON (2-space indent, keys
// alphabetical)" — serde_json::to_string_pretty, which writes U+2028 and
// U+2029 as raw characters, where Go's encoder always escapes them.
func TestReviewSectionJSONKeepsLineSeparators(t *testing.T) {
	f := newFixture(t, nil)
	f.engine.returns("demo::sep", "{\"a\":\"x\u2028y\u2029z\"}")
	mime, text, err := f.reg.read(f.ctx, "iii://fn/demo/sep")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"x\u2028y\u2029z\"\n}"
	if mime != mimeJSON || text != want {
		t.Errorf("section = %s %q, want %s %q", mime, text, mimeJSON, want)
	}
}

// reference-behaviour.md §4: state::list results are accepted as "a flat
// array, or {items:[{value:…}]}, or {value:[…]}". The reference
// (state.rs extract_state_entries) takes `items` only when it is an
// array, falls through to `value` otherwise, and drops items that have
// no `value`. Decoding the whole object into one Go struct used to let a
// single odd item, or a non-array `items`, empty the listing.
func TestReviewStateListEnvelopeTolerance(t *testing.T) {
	row := `{"id":"a","skill":"# A","registered_at":"2026-01-01T00:00:00+00:00"}`
	tests := []struct{ name, list string }{
		{"items with a non-object entry", `{"items":[{"value":` + row + `},"junk"]}`},
		{"non-array items falls through to value", `{"items":{},"value":[` + row + `]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.engine.returns("state::list", tt.list)
			out, err := f.reg.listSkills(f.ctx, emptyInput{})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Skills) != 1 || out.Skills[0].ID != "a" {
				t.Errorf("skills = %+v, want the one row a", out.Skills)
			}
		})
	}
}
