package registry

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/contract"
)

func TestParse(t *testing.T) {
	tests := []struct {
		uri     string
		want    URI
		wantErr string
	}{
		{uri: "iii://skills", want: URI{Kind: KindIndex}},
		{uri: "iii://brain", want: URI{Kind: KindSkill, Key: "brain"}},
		{uri: "iii://parent/sub", want: URI{Kind: KindSkill, Key: "parent/sub"}},
		{uri: "iii://a/b/c/d/e", want: URI{Kind: KindSkill, Key: "a/b/c/d/e"}},
		{uri: "iii://skills/x", want: URI{Kind: KindSkill, Key: "skills/x"}},
		{uri: "iii://docs/fn-reference", want: URI{Kind: KindSkill, Key: "docs/fn-reference"}},
		{uri: "iii://a/fn/c", want: URI{Kind: KindSkill, Key: "a/fn/c"}},
		// Keys are not validated by Parse: the resolver answers "not found".
		{uri: "iii://Skills", want: URI{Kind: KindSkill, Key: "Skills"}},
		{uri: "iii://x/worker::fn", want: URI{Kind: KindSkill, Key: "x/worker::fn"}},
		{uri: "iii://fnx", want: URI{Kind: KindSkill, Key: "fnx"}},
		{uri: "iii://fn/echo", want: URI{Kind: KindSection, FunctionID: "echo"}},
		{uri: "iii://fn/scope/echo", want: URI{Kind: KindSection, FunctionID: "scope::echo"}},
		{uri: "iii://fn/resend/email/send", want: URI{Kind: KindSection, FunctionID: "resend::email::send"}},
		{uri: "iii://fn/a/b/c/d", want: URI{Kind: KindSection, FunctionID: "a::b::c::d"}},
		{uri: "iii://fn/state/set", want: URI{Kind: KindSection, FunctionID: "state::set"}}, // the guard is the resolver's job

		{uri: "brain", wantErr: "Resource URI must start with iii://: brain"},
		{uri: "https://example.com", wantErr: "Resource URI must start with iii://: https://example.com"},
		{uri: "III://skills", wantErr: "Resource URI must start with iii://: III://skills"},
		{uri: "", wantErr: "Resource URI must start with iii://: "},
		{uri: "iii://", wantErr: "Empty resource id: iii://"},
		{uri: "iii://fn", wantErr: "Section URI 'iii://fn' is missing a function path: expected iii://fn/{a}/{b}/...: iii://fn"},
		{uri: "iii://fn/", wantErr: "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://fn/"},
		{uri: "iii://skill/", wantErr: "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://skill/"},
		{uri: "iii:///fn", wantErr: "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii:///fn"},
		{uri: "iii://a//b", wantErr: "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://a//b"},
		{uri: "iii://skills/", wantErr: "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://skills/"},
		{uri: "iii://fn/iii.on_foo", wantErr: `invalid section URI segment "iii.on_foo": segment may only contain lowercase ASCII letters, digits, '-' and '_': "iii.on_foo"`},
		{uri: "iii://fn/a/Echo", wantErr: `invalid section URI segment "Echo": segment may only contain lowercase ASCII letters, digits, '-' and '_': "Echo"`},
		{uri: "iii://fn/a::b", wantErr: `invalid section URI segment "a::b": segment may only contain lowercase ASCII letters, digits, '-' and '_': "a::b"`},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			got, err := Parse(tt.uri)
			msg, code := errText(err)
			if msg != tt.wantErr {
				t.Fatalf("Parse(%q) error = %q, want %q", tt.uri, msg, tt.wantErr)
			}
			if err != nil {
				if code != contract.CodeInvalidArgument {
					t.Errorf("code = %q, want %q", code, contract.CodeInvalidArgument)
				}
				if got != (URI{}) {
					t.Errorf("a failed parse returned %+v, want the zero URI", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.uri, diff)
			}
		})
	}
}

func TestSectionURIRoundTrips(t *testing.T) {
	for _, id := range []string{"foo", "scope::echo", "resend::email::send"} {
		t.Run(id, func(t *testing.T) {
			got, err := Parse(SectionURI(id))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(URI{Kind: KindSection, FunctionID: id}, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	got := []string{KindIndex.String(), KindSkill.String(), KindSection.String(), Kind(0).String()}
	if diff := cmp.Diff([]string{"index", "skill", "section", "invalid"}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func ExampleParse() {
	for _, uri := range []string{"iii://skills", "iii://resend/email", "iii://fn/resend/health", "iii://fn"} {
		u, err := Parse(uri)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("%s key=%q function=%q\n", u.Kind, u.Key, u.FunctionID)
	}
	// Output:
	// index key="" function=""
	// skill key="resend/email" function=""
	// section key="" function="resend::health"
	// error: Section URI 'iii://fn' is missing a function path: expected iii://fn/{a}/{b}/...: iii://fn
}

func ExampleSectionURI() {
	fmt.Println(SectionURI("resend::email::send"))
	// Output: iii://fn/resend/email/send
}
