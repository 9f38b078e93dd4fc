package registry

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

func TestPromptMessages(t *testing.T) {
	tests := []struct {
		name, res, want, wantErr string
	}{
		{"string", `"str body"`, `[{"role":"user","content":{"type":"text","text":"str body"}}]`, ""},
		{"content", `{"content":"obj body"}`, `[{"role":"user","content":{"type":"text","text":"obj body"}}]`, ""},
		{"messages pass through", `{"messages":[{"role":"user","content":{"type":"text","text":"m1"}},{"role":"assistant","content":{"type":"text","text":"m2"}}]}`,
			`[{"role":"user","content":{"type":"text","text":"m1"}},{"role":"assistant","content":{"type":"text","text":"m2"}}]`, ""},
		{"messages win over content", `{"content":"c","messages":[]}`, `[]`, ""},
		{"messages not validated", `{"messages":[1,"x"]}`, `[1,"x"]`, ""},
		{"non-array messages fall back to content", `{"messages":"no","content":"c"}`, `[{"role":"user","content":{"type":"text","text":"c"}}]`, ""},
		{"unsupported object", `{"text":"x"}`, "", "prompt handler returned unsupported shape; expected string, { content }, or { messages: [...] }"},
		{"number", `5`, "", "prompt handler returned unsupported shape; expected string, { content }, or { messages: [...] }"},
		{"null", `null`, "", "prompt handler returned unsupported shape; expected string, { content }, or { messages: [...] }"},
		{"no result", ``, "", "prompt handler returned unsupported shape; expected string, { content }, or { messages: [...] }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := promptMessages(json.RawMessage(tt.res))
			if msg, _ := errText(err); msg != tt.wantErr {
				t.Fatalf("error = %q, want %q", msg, tt.wantErr)
			}
			if string(got) != tt.want {
				t.Errorf("messages = %s, want %s", got, tt.want)
			}
		})
	}
}

// registerEchoPrompt registers prompt "greet" backed by demo::greet, which
// answers result; it returns the fixture.
func registerEchoPrompt(t *testing.T, result string) *fixture {
	t.Helper()
	f := newFixture(t, nil)
	f.engine.returns("demo::greet", result)
	in := registerPromptInput{Name: "greet", Description: "bdd prompt", FunctionID: "demo::greet", Arguments: []promptArgument{{Name: "name"}}}
	if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGetPrompt(t *testing.T) {
	f := registerEchoPrompt(t, `{"content":"Greet alice warmly."}`)
	got, err := f.reg.getPrompt(f.ctx, promptGetInput{Name: "greet", Arguments: json.RawMessage(`{"name":"alice"}`)})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(got)
	want := `{"description":"bdd prompt","messages":[{"role":"user","content":{"type":"text","text":"Greet alice warmly."}}]}`
	if string(out) != want {
		t.Errorf("output\n got %s\nwant %s", out, want)
	}
}

func TestGetPromptArgumentsPayload(t *testing.T) {
	tests := []struct {
		name string
		args string
		want string
	}{
		{"given object, unwrapped", `{"to":"a@b.c"}`, `{"to":"a@b.c"}`},
		{"absent", ``, `{}`},
		{"null", `null`, `{}`},
		{"non-object passed as given", `["x"]`, `["x"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := registerEchoPrompt(t, `"ok"`)
			if _, err := f.reg.getPrompt(f.ctx, promptGetInput{Name: "greet", Arguments: json.RawMessage(tt.args)}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.want}, f.engine.callsTo("demo::greet")); diff != "" {
				t.Errorf("handler payload (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGetPromptErrors(t *testing.T) {
	internalMsg := "Prompt handler 'state::set' is in an internal namespace and cannot back a prompt"
	tests := []struct {
		name     string
		setup    func(f *fixture)
		prompt   string
		wantErr  string
		wantCode string
	}{
		{"unknown prompt", func(*fixture) {}, "no-such-prompt", "Prompt not found: no-such-prompt", contract.CodeNotFound},
		{"invalid name", func(*fixture) {}, "Bad", `name may only contain lowercase ASCII letters, digits, '-' and '_': "Bad"`, contract.CodeInvalidArgument},
		{"internal handler", func(f *fixture) {
			f.engine.put("prompts", "p", `{"name":"p","description":"d","function_id":"state::set","registered_at":"t","arguments":[]}`)
		}, "p", internalMsg, contract.CodeForbidden},
		{"internal handler with padding", func(f *fixture) {
			f.engine.put("prompts", "p", `{"name":"p","description":"d","function_id":" skills::register","registered_at":"t","arguments":[]}`)
		}, "p", "Prompt handler ' skills::register' is in an internal namespace and cannot back a prompt", contract.CodeForbidden},
		{"handler fails", func(f *fixture) {
			f.engine.put("prompts", "p", `{"name":"p","description":"d","function_id":"w::gone","registered_at":"t"}`)
		}, "p", "trigger w::gone: function_not_found: Function w::gone not found", contract.CodeUnavailable},
		{"unsupported shape", func(f *fixture) {
			f.engine.put("prompts", "p", `{"name":"p","description":"d","function_id":"w::num","registered_at":"t"}`)
			f.engine.returns("w::num", `42`)
		}, "p", "prompt handler returned unsupported shape; expected string, { content }, or { messages: [...] }", contract.CodeUnavailable},
		{"corrupt row", func(f *fixture) {
			f.engine.put("prompts", "p", `{"name":"p"}`)
		}, "p", "decode stored prompt p: missing field `description`", contract.CodeUnavailable},
		{"state down", func(f *fixture) {
			f.engine.failWith("state::get", &iii.Error{Code: "GET_ERROR", Message: "boom"})
		}, "p", "state::get: GET_ERROR: boom", contract.CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			tt.setup(f)
			_, err := f.reg.getPrompt(f.ctx, promptGetInput{Name: tt.prompt})
			msg, code := errText(err)
			if msg != tt.wantErr || code != tt.wantCode {
				t.Errorf("error = %q (%s)\n want %q (%s)", msg, code, tt.wantErr, tt.wantCode)
			}
		})
	}
}
