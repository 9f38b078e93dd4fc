package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

func validPrompt() registerPromptInput {
	return registerPromptInput{Name: "send-email", Description: "Compose and send an email", FunctionID: "myworker::send_email_prompt"}
}

func TestRegisterPromptValidation(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*registerPromptInput)
		wantErr string
	}{
		{"empty name", func(in *registerPromptInput) { in.Name = "" }, "name must be non-empty"},
		{"uppercase name", func(in *registerPromptInput) { in.Name = "Send" }, `name may only contain lowercase ASCII letters, digits, '-' and '_': "Send"`},
		{"space in name", func(in *registerPromptInput) { in.Name = "send email" }, `name may only contain lowercase ASCII letters, digits, '-' and '_': "send email"`},
		{"function-id-like name", func(in *registerPromptInput) { in.Name = "mcp::send" }, `name may only contain lowercase ASCII letters, digits, '-' and '_': "mcp::send"`},
		{"slash in name", func(in *registerPromptInput) { in.Name = "a/b" }, `name may only contain lowercase ASCII letters, digits, '-' and '_': "a/b"`},
		{"65-byte name", func(in *registerPromptInput) { in.Name = strings.Repeat("n", 65) }, "name too long (65 chars; max 64)"},
		{"blank description", func(in *registerPromptInput) { in.Description = "  \n" }, "description must be non-empty"},
		{"missing function_id", func(in *registerPromptInput) { in.FunctionID = "" }, "function_id must be non-empty"},
		{"blank function_id", func(in *registerPromptInput) { in.FunctionID = " " }, "function_id must be non-empty"},
		{"name checked before description", func(in *registerPromptInput) { in.Name, in.Description = "", "" }, "name must be non-empty"},
		{"description checked before function_id", func(in *registerPromptInput) { in.Description, in.FunctionID = "", "" }, "description must be non-empty"},
		{"blank argument name", func(in *registerPromptInput) { in.Arguments = []promptArgument{{Name: "to"}, {Name: "  "}} }, "argument name must be non-empty"},
		{"duplicate argument", func(in *registerPromptInput) {
			in.Arguments = []promptArgument{{Name: "to"}, {Name: "cc"}, {Name: "to"}}
		}, "duplicate argument name: to"},
		{"blank value", func(in *registerPromptInput) {
			in.Arguments = []promptArgument{{Name: "kind", Values: []string{"bug", " "}}}
		}, `argument "kind": values[1] " " is blank; each value must be a non-empty string`},
		{"empty value", func(in *registerPromptInput) {
			in.Arguments = []promptArgument{{Name: "kind", Values: []string{""}}}
		}, `argument "kind": values[0] "" is blank; each value must be a non-empty string`},
		{"201-byte value", func(in *registerPromptInput) {
			in.Arguments = []promptArgument{{Name: "kind", Values: []string{strings.Repeat("v", maxArgValueBytes+1)}}}
		}, `argument "kind": values[0] "` + strings.Repeat("v", 200) + `"… (201 bytes) is too long; each value may be at most 200 bytes`},
		{"101 values", func(in *registerPromptInput) {
			values := make([]string, maxArgValues+1)
			for i := range values {
				values[i] = fmt.Sprint("v", i)
			}
			in.Arguments = []promptArgument{{Name: "kind", Values: values}}
		}, `argument "kind" declares 101 values; at most 100 are allowed`},
		{"duplicate value", func(in *registerPromptInput) {
			in.Arguments = []promptArgument{{Name: "to"}, {Name: "kind", Values: []string{"bug", "feature", "bug"}}}
		}, `argument "kind": duplicate value "bug"; each value may be declared once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			in := validPrompt()
			tt.edit(&in)
			_, err := f.reg.registerPrompt(f.ctx, in)
			msg, code := errText(err)
			if msg != tt.wantErr || code != contract.CodeInvalidArgument {
				t.Errorf("error = %q (%s), want %q (%s)", msg, code, tt.wantErr, contract.CodeInvalidArgument)
			}
			if len(f.engine.callsTo("state::set")) != 0 || len(f.promptEvents.fired()) != 0 {
				t.Error("a rejected register wrote state or notified")
			}
		})
	}
}

func TestRegisterPromptStoresRow(t *testing.T) {
	f := newFixture(t, nil)
	in := validPrompt()
	in.Description = " Compose and send an email "
	in.FunctionID = "state::set" // accepted here, refused at get time
	in.Arguments = []promptArgument{{Name: "to", Description: ptr("Recipient address"), Required: true}, {Name: "subject"}}
	got, err := f.reg.registerPrompt(f.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(registerPromptOutput{Name: "send-email", RegisteredAt: f.fixedTimestamp}, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	want := `{"name":"send-email","description":" Compose and send an email ","arguments":[{"name":"to","description":"Recipient address","required":true},{"name":"subject","required":false}],"function_id":"state::set","registered_at":"2026-05-04T19:22:41.123456789+00:00"}`
	if got := f.engine.value("prompts", "send-email"); got != want {
		t.Errorf("row\n got %s\nwant %s", got, want)
	}
	if diff := cmp.Diff([]string{`{"op":"register","name":"send-email"}`}, f.promptEvents.fired()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if len(f.skillEvents.fired()) != 0 {
		t.Error("skill events fired for a prompt")
	}
}

// Declared values are stored on their argument, listed by mcp-list on
// that argument only, and counted in the prompt's digest; the limits'
// edges are accepted (docs/decisions.md D45).
func TestRegisterPromptWithValues(t *testing.T) {
	f := newFixture(t, nil)
	in := validPrompt()
	in.Arguments = []promptArgument{{Name: "to", Required: true}, {Name: "kind", Values: []string{"bug", "Feature", "Bugfix"}}}
	if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"send-email","description":"Compose and send an email","arguments":[{"name":"to","required":true},{"name":"kind","required":false,"values":["bug","Feature","Bugfix"]}],"function_id":"myworker::send_email_prompt","registered_at":"2026-05-04T19:22:41.123456789+00:00"}`
	if got := f.engine.value("prompts", "send-email"); got != want {
		t.Errorf("row\n got %s\nwant %s", got, want)
	}
	list, err := f.reg.mcpListPrompts(f.ctx, listInput{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(list)
	wantList := `{"prompts":[{"name":"send-email","description":"Compose and send an email","arguments":[{"name":"to","required":true},{"name":"kind","required":false,"values":["bug","Feature","Bugfix"]}]}]}`
	if string(got) != wantList {
		t.Errorf("prompts::mcp-list\n got %s\nwant %s", got, wantList)
	}
	before, _ := f.reg.listPrompts(f.ctx, emptyInput{})
	in.Arguments[1].Values = in.Arguments[1].Values[:2]
	if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
		t.Fatal(err)
	}
	after, _ := f.reg.listPrompts(f.ctx, emptyInput{})
	if before.Prompts[0].SHA256 == after.Prompts[0].SHA256 {
		t.Error("the digest did not change with the declared values")
	}

	values := make([]string, maxArgValues)
	for i := range values {
		values[i] = fmt.Sprint(i)
	}
	values[0] = strings.Repeat("é", maxArgValueBytes/2)
	in.Arguments = []promptArgument{{Name: "kind", Values: values}}
	if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
		t.Errorf("%d values, one of %d bytes: %v; want accepted", maxArgValues, maxArgValueBytes, err)
	}
}

// A prompt registered without values keeps 0.2's shapes byte for byte:
// its row, prompts::list and prompts::mcp-list carry no values key.
func TestRegisterPromptWithoutValuesKeeps02Shapes(t *testing.T) {
	f := newFixture(t, nil)
	in := validPrompt()
	in.Arguments = []promptArgument{{Name: "to", Description: ptr("Recipient"), Required: true}, {Name: "cc"}}
	if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
		t.Fatal(err)
	}
	f.engine.put("prompts", "rust-row", `{"arguments":[{"description":"Topic","name":"topic","required":true}],"description":"From 0.2","function_id":"w::p","name":"rust-row","registered_at":"t"}`)
	for _, fn := range []func() (any, error){
		func() (any, error) { return f.reg.listPrompts(f.ctx, emptyInput{}) },
		func() (any, error) { return f.reg.mcpListPrompts(f.ctx, listInput{}) },
	} {
		out, err := fn()
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(out); strings.Contains(string(b), "values") {
			t.Errorf("%s: a values key with none declared", b)
		}
	}
	mcp, _ := f.reg.mcpListPrompts(f.ctx, listInput{})
	got, _ := json.Marshal(mcp.Prompts[0])
	if want := `{"name":"rust-row","description":"From 0.2","arguments":[{"name":"topic","description":"Topic","required":true}]}`; string(got) != want {
		t.Errorf("a 0.2 row in mcp-list\n got %s\nwant %s", got, want)
	}
}

func TestRegisterPromptNoArgumentsStoresEmptyArray(t *testing.T) {
	f := newFixture(t, nil)
	if _, err := f.reg.registerPrompt(f.ctx, validPrompt()); err != nil {
		t.Fatal(err)
	}
	if got := f.engine.value("prompts", "send-email"); !strings.Contains(got, `"arguments":[]`) {
		t.Errorf("row = %s, want an empty arguments array", got)
	}
}

func TestUnregisterPrompt(t *testing.T) {
	f := newFixture(t, nil)
	if _, err := f.reg.registerPrompt(f.ctx, validPrompt()); err != nil {
		t.Fatal(err)
	}
	for i, wantRemoved := range []bool{true, false} {
		got, err := f.reg.unregisterPrompt(f.ctx, unregisterPromptInput{Name: "send-email"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(unregisterPromptOutput{Name: "send-email", Removed: wantRemoved}, got); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", i+1, diff)
		}
	}
	want := []string{`{"op":"register","name":"send-email"}`, `{"op":"unregister","name":"send-email"}`}
	if diff := cmp.Diff(want, f.promptEvents.fired()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	_, err := f.reg.unregisterPrompt(f.ctx, unregisterPromptInput{Name: ""})
	if msg, code := errText(err); msg != "name must be non-empty" || code != contract.CodeInvalidArgument {
		t.Errorf("error = %q (%s)", msg, code)
	}
}

func TestListPrompts(t *testing.T) {
	f := newFixture(t, nil)
	for _, in := range []registerPromptInput{
		{Name: "open-pr", Description: "Open a GitHub pull request.", FunctionID: "gh::pr"},
		{Name: "send-email", Description: "Compose and send an email", FunctionID: "mail::compose", Arguments: []promptArgument{{Name: "to", Description: ptr("Recipient address"), Required: true}, {Name: "cc"}}},
	} {
		if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	f.engine.put("prompts", "zz-broken", `{"name":"zz-broken"}`)

	list, err := f.reg.listPrompts(f.ctx, emptyInput{})
	if err != nil {
		t.Fatal(err)
	}
	at := f.fixedTimestamp
	wantList := listPromptsOutput{Prompts: []promptEntry{
		{Name: "open-pr", FunctionID: "gh::pr", Arguments: 0, RegisteredAt: at, Origin: "state"},
		{Name: "send-email", FunctionID: "mail::compose", Arguments: 2, RegisteredAt: at, Origin: "state"},
	}}
	if diff := cmp.Diff(wantList, list, cmpopts.IgnoreFields(promptEntry{}, "SHA256")); diff != "" {
		t.Errorf("prompts::list (-want +got):\n%s", diff)
	}

	mcp, err := f.reg.mcpListPrompts(f.ctx, listInput{})
	if err != nil {
		t.Fatal(err)
	}
	wantMCP := mcpListOutput{Prompts: []mcpPrompt{
		{Name: "open-pr", Description: "Open a GitHub pull request.", Arguments: []catalog.PromptArg{}},
		{Name: "send-email", Description: "Compose and send an email", Arguments: []catalog.PromptArg{{Name: "to", Description: ptr("Recipient address"), Required: true}, {Name: "cc"}}},
	}}
	if diff := cmp.Diff(wantMCP, mcp); diff != "" {
		t.Errorf("prompts::mcp-list (-want +got):\n%s", diff)
	}

	// D41: a state prompt's digest covers its definition, not when it was
	// registered: the same definition again keeps it, a new description
	// changes it.
	first := list.Prompts[1].SHA256
	if len(first) != 64 || first == list.Prompts[0].SHA256 {
		t.Errorf("digests %q and %q: want two different SHA-256 hex digests", list.Prompts[0].SHA256, first)
	}
	again := registerPromptInput{Name: "send-email", Description: "Compose and send an email", FunctionID: "mail::compose", Arguments: []promptArgument{{Name: "to", Description: ptr("Recipient address"), Required: true}, {Name: "cc"}}}
	f.reg.now = func() time.Time { return fixedNow.Add(time.Hour) }
	if _, err := f.reg.registerPrompt(f.ctx, again); err != nil {
		t.Fatal(err)
	}
	if l, _ := f.reg.listPrompts(f.ctx, emptyInput{}); l.Prompts[1].SHA256 != first || l.Prompts[1].RegisteredAt == at {
		t.Errorf("re-registered unchanged: digest %q (was %q), registered_at %q", l.Prompts[1].SHA256, first, l.Prompts[1].RegisteredAt)
	}
	again.Description = "Compose an email"
	if _, err := f.reg.registerPrompt(f.ctx, again); err != nil {
		t.Fatal(err)
	}
	if l, _ := f.reg.listPrompts(f.ctx, emptyInput{}); l.Prompts[1].SHA256 == first {
		t.Error("a new description kept the old digest")
	}

	f.engine.failWith("state::list", &iii.Error{Code: "LIST_ERROR", Message: "x"})
	if _, err := f.reg.listPrompts(f.ctx, emptyInput{}); err == nil {
		t.Error("prompts::list must fail when state cannot be listed")
	}
	mcp, err = f.reg.mcpListPrompts(f.ctx, listInput{})
	if err != nil || len(mcp.Prompts) != 0 || mcp.Prompts == nil {
		t.Errorf("mcp-list must swallow a state failure into []: %+v, %v", mcp, err)
	}
}
