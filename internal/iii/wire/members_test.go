package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// A state event as the engine sends it: Members finds the named members,
// whatever their order, escapes in keys included, and leaves the rest.
func TestMembers(t *testing.T) {
	tests := []struct {
		in      string
		want    []string // "" for an absent member
		wantErr string
	}{
		{`{"type":"state","scope":"skills","key":"a/b","old_value":{"skill":"x"},"new_value":{"id":"a/b"}}`,
			[]string{`"skills"`, `"a/b"`, `{"id":"a/b"}`}, ""},
		{` { "new_value" : null , "\u0073cope" : "s" } `, []string{`"s"`, "", `null`}, ""},
		{`{}`, []string{"", "", ""}, ""},
		{`{"scope":"a","scope":"b"}`, nil, `duplicate field "scope"`},
		{`{"other":1,"other":2}`, []string{"", "", ""}, ""}, // only the named members must be unique
		{`[]`, nil, "not a JSON object"},
		{`{"scope":"a"} x`, nil, "data after the object"},
		{`{"scope":"a",}`, nil, "expected a key"},
		{"{\"key\":\"\xff\"}", nil, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Members([]byte(tt.in), "scope", "key", "new_value")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Members(%s) = %q, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Members(%s): %v", tt.in, err)
			}
			gotS := make([]string, len(got))
			for i, g := range got {
				gotS[i] = string(g)
			}
			if diff := cmp.Diff(tt.want, gotS); diff != "" {
				t.Errorf("Members(%s) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{`"plain"`: "plain", `"a\"b\u00e9\n"`: "a\"b\u00e9\n", `"é"`: "é"} {
		if got, err := String([]byte(in)); err != nil || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{``, `5`, `null`, `"open`, `"a" "b"`, "\"\xff\""} {
		if got, err := String([]byte(in)); err == nil {
			t.Errorf("String(%s) = %q, want an error", in, got)
		}
	}
}

// FuzzMembers checks Members against encoding/json: it accepts exactly the
// valid UTF-8 JSON objects whose named members are not repeated, and finds
// the values encoding/json finds. Inputs with uppercase or non-ASCII bytes
// are left out of the value comparison: encoding/json matches keys
// case-insensitively where serde, and Members, do not.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[2,{"c":"d"}]}`, `{"a":1,"a":2}`, `{"\u0061":"x"}`, `{}`, `[]`, `{"a":}`, "{\"b\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := Members(in, "a", "b")
		var ref map[string]json.RawMessage
		isObject := json.Valid(in) && utf8.Valid(in) && json.Unmarshal(in, &ref) == nil && ref != nil
		if err != nil {
			if isObject && !strings.Contains(err.Error(), "duplicate field") {
				t.Fatalf("Members(%q) refused a valid object: %v", in, err)
			}
			return
		}
		if !isObject {
			t.Fatalf("Members(%q) accepted what is not a valid JSON object", in)
		}
		for _, c := range in {
			if c >= 'A' && c <= 'Z' || c >= 0x80 {
				return
			}
		}
		for i, name := range []string{"a", "b"} {
			want, ok := ref[name]
			if ok != (got[i] != nil) || ok && !jsonEqual(want, got[i]) {
				t.Errorf("Members(%q)[%s] = %s, encoding/json finds %s (present %v)", in, name, got[i], want, ok)
			}
		}
	})
}

// jsonEqual compares two JSON values by content.
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}
