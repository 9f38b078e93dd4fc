package catalog

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeSkillRow(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    SkillRow
		wantErr string
	}{
		{"rust row", `{"id":"resend/email","registered_at":"2026-05-04T19:22:41.123456789+00:00","skill":"# x"}`,
			SkillRow{ID: "resend/email", Skill: "# x", RegisteredAt: "2026-05-04T19:22:41.123456789+00:00"}, ""},
		{"v0.2.1 row with tools", `{"id":"a","skill":"b","registered_at":"t","tools":[{"name":"a::x"}]}`,
			SkillRow{ID: "a", Skill: "b", RegisteredAt: "t"}, ""},
		{"missing registered_at", `{"id":"a","skill":"b"}`, SkillRow{}, "missing field `registered_at`"},
		{"null skill", `{"id":"a","skill":null,"registered_at":"t"}`, SkillRow{}, "missing field `skill`"},
		{"wrong type", `{"id":"a","skill":5,"registered_at":"t"}`, SkillRow{}, "invalid type for field `skill`: number, expected string"},
		{"not an object", `"a"`, SkillRow{}, "invalid type: string, expected an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeSkillRow(json.RawMessage(tt.raw))
			if msg := errMsg(err); msg != tt.wantErr {
				t.Fatalf("error = %q, want %q", msg, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodePromptRow(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    PromptRow
		wantErr string
	}{
		{
			"rust row",
			`{"arguments":[{"description":"Recipient address","name":"to","required":true},{"name":"cc","required":false}],"description":"Compose","function_id":"w::p","name":"send-email","registered_at":"t"}`,
			PromptRow{Name: "send-email", Description: "Compose", FunctionID: "w::p", RegisteredAt: "t", Arguments: []PromptArg{
				{Name: "to", Description: ptr("Recipient address"), Required: true},
				{Name: "cc"},
			}},
			"",
		},
		{
			"arguments and required optional",
			`{"description":"d","function_id":"w::p","name":"n","registered_at":"t","arguments":[{"name":"x"}]}`,
			PromptRow{Name: "n", Description: "d", FunctionID: "w::p", RegisteredAt: "t", Arguments: []PromptArg{{Name: "x"}}},
			"",
		},
		{
			"no arguments key",
			`{"description":"d","function_id":"w::p","name":"n","registered_at":"t"}`,
			PromptRow{Name: "n", Description: "d", FunctionID: "w::p", RegisteredAt: "t", Arguments: []PromptArg{}},
			"",
		},
		{
			"declared values (additive, D45)",
			`{"description":"d","function_id":"w::p","name":"n","registered_at":"t","arguments":[{"name":"x","values":["bug","feature"]}]}`,
			PromptRow{Name: "n", Description: "d", FunctionID: "w::p", RegisteredAt: "t", Arguments: []PromptArg{{Name: "x", Values: []string{"bug", "feature"}}}},
			"",
		},
		{
			// The Rust worker ignores the key, so such a row is kept, as there.
			"values not a list of strings are dropped, the row kept",
			`{"description":"d","function_id":"w::p","name":"n","registered_at":"t","arguments":[{"name":"x","values":7},{"name":"y","values":["a",null]},{"name":"z","values":[]}]}`,
			PromptRow{Name: "n", Description: "d", FunctionID: "w::p", RegisteredAt: "t", Arguments: []PromptArg{{Name: "x"}, {Name: "y"}, {Name: "z"}}},
			"",
		},
		{"argument without name", `{"description":"d","function_id":"f","name":"n","registered_at":"t","arguments":[{}]}`, PromptRow{}, "missing field `name` in arguments[0]"},
		{"missing function_id", `{"description":"d","name":"n","registered_at":"t"}`, PromptRow{}, "missing field `function_id`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodePromptRow(json.RawMessage(tt.raw))
			if msg := errMsg(err); msg != tt.wantErr {
				t.Fatalf("error = %q, want %q", msg, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeRowsSkipsBadRows(t *testing.T) {
	good := `{"id":"a","skill":"b","registered_at":"t"}`
	tests := []struct {
		name string
		res  string
		want []string
	}{
		{"all good, one pass", `[` + good + `]`, []string{"a"}},
		{"a null row", `[null,` + good + `]`, []string{"a"}},
		{"a mistyped row forces row-by-row", `["x",{"id":1},` + good + `]`, []string{"a"}},
		{"items wrapper", `{"items":[{"value":` + good + `},{"value":7}]}`, []string{"a"}},
		{"unknown shape", `{"nope":true}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range decodeRows[skillWire, SkillRow](json.RawMessage(tt.res)) {
				got = append(got, r.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRowsEncodeLikeRust(t *testing.T) {
	skill, _ := json.Marshal(SkillRow{ID: "a", Skill: "b", RegisteredAt: "t"})
	if got, want := string(skill), `{"id":"a","skill":"b","registered_at":"t"}`; got != want {
		t.Errorf("skill row = %s, want %s", got, want)
	}
	prompt, _ := json.Marshal(PromptRow{Name: "n", Description: "d", FunctionID: "f", RegisteredAt: "t", Arguments: []PromptArg{{Name: "x"}, {Name: "y", Description: ptr("why"), Required: true}}})
	want := `{"name":"n","description":"d","arguments":[{"name":"x","required":false},{"name":"y","description":"why","required":true}],"function_id":"f","registered_at":"t"}`
	if string(prompt) != want {
		t.Errorf("prompt row = %s, want %s", prompt, want)
	}
	withValues, _ := json.Marshal(PromptArg{Name: "x", Values: []string{"a"}})
	if got, want := string(withValues), `{"name":"x","required":false,"values":["a"]}`; got != want {
		t.Errorf("argument with values = %s, want %s", got, want)
	}
}

// errMsg is err's message, "" for nil.
func errMsg(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func ptr[T any](v T) *T { return &v }
