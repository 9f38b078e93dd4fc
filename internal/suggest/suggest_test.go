package suggest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNearest(t *testing.T) {
	ids := []string{"skills::list", "skills::register", "skills::unregister", "prompts::list", "skill::fetch", "state::get"}
	tests := []struct {
		target string
		want   []string
	}{
		{"skills::lst", []string{"skills::list"}},
		{"skill::list", []string{"skills::list"}},
		{"skills::registr", []string{"skills::register", "skills::unregister"}},
		{"prompt::list", []string{"prompts::list"}},
		{"totally::different", []string{}},
		{"skills::list", []string{}}, // the name itself is never suggested
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Nearest(tt.target, ids, 3)); diff != "" {
			t.Errorf("Nearest(%q) (-want +got):\n%s", tt.target, diff)
		}
	}
	if got := Nearest("skills::registr", ids, 1); !cmp.Equal(got, []string{"skills::register"}) {
		t.Errorf("Nearest with n=1 = %v, want the closest only", got)
	}
}

func TestOr(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	} {
		if got := Or(tt.names); got != tt.want {
			t.Errorf("Or(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}
