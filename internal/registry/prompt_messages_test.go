package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
)

// A prompt handler's messages reach MCP clients, whose schema validation
// fails with an unreadable error on a wrong role or content; prompts::mcp-get
// checks them first and names the handler and the first wrong field (D29).
func TestGetPromptChecksHandlerMessages(t *testing.T) {
	const prefix = "prompt handler demo::greet returned "
	tests := []struct {
		name    string
		result  string
		want    string // messages on success
		wantErr string // error on failure, after prefix
	}{
		{name: "valid text messages pass byte for byte",
			result: `{"messages":[{"role":"user","content":{"type":"text","text":"<b>hi</b>"}},{"role":"assistant","content":{"type":"text","text":"ok","annotations":{"priority":1}}}]}`,
			want:   `[{"role":"user","content":{"type":"text","text":"<b>hi</b>"}},{"role":"assistant","content":{"type":"text","text":"ok","annotations":{"priority":1}}}]`},
		{name: "every content type",
			result: `{"messages":[{"role":"user","content":{"type":"image","data":"aGk=","mimeType":"image/png"}},{"role":"user","content":{"type":"audio","data":"aGk=","mimeType":"audio/wav"}},{"role":"user","content":{"type":"resource","resource":{"uri":"iii://a","text":"t"}}},{"role":"user","content":{"type":"resource","resource":{"uri":"iii://b","blob":"aGk="}}},{"role":"user","content":{"type":"resource_link","uri":"iii://c","name":"c"}}]}`,
			want:   `[{"role":"user","content":{"type":"image","data":"aGk=","mimeType":"image/png"}},{"role":"user","content":{"type":"audio","data":"aGk=","mimeType":"audio/wav"}},{"role":"user","content":{"type":"resource","resource":{"uri":"iii://a","text":"t"}}},{"role":"user","content":{"type":"resource","resource":{"uri":"iii://b","blob":"aGk="}}},{"role":"user","content":{"type":"resource_link","uri":"iii://c","name":"c"}}]`},
		{name: "string content becomes text content, other fields kept in order",
			result: `{"messages":[{"content":"plain","role":"assistant","x":1}]}`,
			want:   `[{"content":{"type":"text","text":"plain"},"role":"assistant","x":1}]`},
		{name: "empty list", result: `{"messages":[]}`, want: `[]`},
		{name: "system role", result: `{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}`,
			wantErr: `messages[0].role "system"; allowed: user, assistant`},
		{name: "role missing", result: `{"messages":[{"role":"user","content":"a"},{"content":"b"}]}`,
			wantErr: `messages[1].role is missing; allowed: user, assistant`},
		{name: "role not a string", result: `{"messages":[{"role":7,"content":"b"}]}`,
			wantErr: `messages[0].role is a number; allowed: user, assistant`},
		{name: "message not an object", result: `{"messages":["hi"]}`,
			wantErr: `messages[0] is a string; each message must be an object with role and content`},
		{name: "content missing", result: `{"messages":[{"role":"user"}]}`,
			wantErr: `messages[0].content is missing; it must be a content object such as {"type":"text","text":"…"}`},
		{name: "content an array", result: `{"messages":[{"role":"user","content":[]}]}`,
			wantErr: `messages[0].content is an array; it must be a string or a content object with a type (text, image, audio, resource, resource_link)`},
		{name: "unknown content type", result: `{"messages":[{"role":"user","content":{"type":"video","data":"x"}}]}`,
			wantErr: `messages[0].content.type "video"; allowed: text, image, audio, resource, resource_link`},
		{name: "text without text", result: `{"messages":[{"role":"user","content":{"type":"text"}}]}`,
			wantErr: `messages[0].content.text is missing; a text content needs a string text`},
		{name: "image without mimeType", result: `{"messages":[{"role":"user","content":{"type":"image","data":"aGk="}}]}`,
			wantErr: `messages[0].content.mimeType is missing; a image content needs a string mimeType`},
		{name: "resource without text or blob", result: `{"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"iii://a"}}}]}`,
			wantErr: `messages[0].content.resource has neither a string text nor a string blob; an embedded resource needs one of them`},
		{name: "resource_link without name", result: `{"messages":[{"role":"user","content":{"type":"resource_link","uri":"iii://a"}}]}`,
			wantErr: `messages[0].content.name is missing; a resource_link content needs a string name`},
		{name: "long role is quoted at most 200 characters",
			result:  `{"messages":[{"role":"` + strings.Repeat("r", 5000) + `","content":"x"}]}`,
			wantErr: `messages[0].role "` + strings.Repeat("r", 200) + `"… (5000 bytes); allowed: user, assistant`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := registerEchoPrompt(t, tt.result)
			got, err := f.reg.getPrompt(f.ctx, promptGetInput{Name: "greet"})
			if tt.wantErr != "" {
				msg, code := errText(err)
				if msg != prefix+tt.wantErr || code != contract.CodeUnavailable {
					t.Errorf("error = %q (%s)\n want %q (%s)", msg, code, prefix+tt.wantErr, contract.CodeUnavailable)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Messages) != tt.want {
				t.Errorf("messages\n got %s\nwant %s", got.Messages, tt.want)
			}
		})
	}
}

// FuzzCheckMessages: any handler output is either rejected with an error
// or turned into messages that are valid JSON and pass the check unchanged.
func FuzzCheckMessages(f *testing.F) {
	f.Add(`[{"role":"user","content":"x"}]`)
	f.Add(`[{"role":"assistant","content":{"type":"resource","resource":{"uri":"u","blob":"b"}}}]`)
	f.Add(`[{"role":"user","content":{"type":"text","text":"a"},"role":"system"}]`)
	f.Add(`[1,{"role":null}]`)
	f.Fuzz(func(t *testing.T, in string) {
		out, err := checkMessages("f::h", json.RawMessage(in))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("checkMessages(%q) = %q, not valid JSON", in, out)
		}
		again, err := checkMessages("f::h", out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("checked output %q does not pass again unchanged: %q, %v", out, again, err)
		}
	})
}
