package registry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
)

func TestResourcesRead(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "resend", "# resend\n\nEmail provider integration.\n")
	f.mustRegisterSkill(t, "parent/sub/leaf", "deep body")
	f.engine.returns("scope::echo", `"# echoed"`)
	f.engine.returns("resend::health", `{"content":"# Resend health\n\nAPI: ok."}`)

	tests := []struct {
		uri, mime, text string
	}{
		{"iii://resend", contract.MIMEMarkdown, "# resend\n\nEmail provider integration.\n"},
		{"iii://parent/sub/leaf", contract.MIMEMarkdown, "deep body"},
		{"iii://fn/scope/echo", contract.MIMEMarkdown, "# echoed"},
		{"iii://fn/resend/health", contract.MIMEMarkdown, "# Resend health\n\nAPI: ok."},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			got, err := f.reg.resourcesRead(f.ctx, readIn(tt.uri))
			if err != nil {
				t.Fatal(err)
			}
			want := readResourceOutput{Contents: []resourceContent{{URI: tt.uri, MimeType: tt.mime, Text: tt.text}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("index", func(t *testing.T) {
		got, err := f.reg.resourcesRead(f.ctx, readIn("iii://skills"))
		if err != nil {
			t.Fatal(err)
		}
		c := got.Contents[0]
		if c.MimeType != contract.MIMEMarkdown || !strings.HasPrefix(c.Text, "# Skills\n\n") || !strings.Contains(c.Text, "- [`resend`](iii://resend) — resend — Email provider integration.\n") {
			t.Errorf("index contents = %+v", c)
		}
	})
	t.Run("sections are triggered with {}", func(t *testing.T) {
		if diff := cmp.Diff([]string{"{}"}, f.engine.callsTo("scope::echo")); diff != "" {
			t.Errorf("payloads (-want +got):\n%s", diff)
		}
	})
}

func TestResourcesReadErrors(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "x", "# x")
	tests := []struct {
		uri, wantErr, wantCode string
	}{
		{"https://example.com", "Resource URI must start with iii://: https://example.com", contract.CodeInvalidArgument},
		{"iii://fn", "Section URI 'iii://fn' is missing a function path: expected iii://fn/{a}/{b}/...: iii://fn", contract.CodeInvalidArgument},
		{"iii://fn/", "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://fn/", contract.CodeInvalidArgument},
		{"iii://", "Empty resource id: iii://", contract.CodeInvalidArgument},
		{"iii://no-such-skill", "Skill not found: no-such-skill", contract.CodeNotFound},
		{"iii://no-parent/no-child", "Skill not found: no-parent/no-child", contract.CodeNotFound},
		{"iii://x/echo", "Skill not found: x/echo", contract.CodeNotFound},
		// docs/decisions.md D3: keys that fail validation are simply not found; a
		// "::" key is a v0.1 link and gets the new spelling.
		{"iii://Skills", "Skill not found: Skills", contract.CodeNotFound},
		{"iii://x/worker::fn", "Skill not found: x/worker::fn (function links are written iii://fn/worker/fn since v0.2.0)", contract.CodeNotFound},
		{"iii://brain/brain::summarize", "Skill not found: brain/brain::summarize (function links are written iii://fn/brain/summarize since v0.2.0)", contract.CodeNotFound},
		{"iii://demo::guide", "Skill not found: demo::guide (function links are written iii://fn/demo/guide since v0.2.0)", contract.CodeNotFound},
		{"iii://x/state::get", "Skill not found: x/state::get (function links are written iii://fn/state/get since v0.2.0)", contract.CodeNotFound},
		// Caller input is echoed up to 200 characters, then its length (D27).
		{"iii://" + strings.Repeat("a", 1025), "Skill not found: " + strings.Repeat("a", 200) + "… (1025 bytes)", contract.CodeNotFound},
		{"http://" + strings.Repeat("b", 10<<20), "Resource URI must start with iii://: http://" + strings.Repeat("b", 193) + "… (10485767 bytes)", contract.CodeInvalidArgument},
		{"iii://fn/state/set", "Function 'state::set' is in an internal namespace and cannot back a skill resource", contract.CodeForbidden},
		{"iii://fn/iii.on_foo", `invalid section URI segment "iii.on_foo": segment may only contain lowercase ASCII letters, digits, '-' and '_': "iii.on_foo"`, contract.CodeInvalidArgument},
		{"iii://fn/missing/fn", "trigger missing::fn: function_not_found: Function missing::fn not found", contract.CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(ids.Clip(tt.uri), func(t *testing.T) {
			_, err := f.reg.resourcesRead(f.ctx, readIn(tt.uri))
			msg, code := errText(err)
			if msg != tt.wantErr || code != tt.wantCode {
				t.Errorf("error = %q (%s)\n want %q (%s)", msg, code, tt.wantErr, tt.wantCode)
			}
		})
	}
	t.Run("invalid keys never reach state", func(t *testing.T) {
		for _, p := range f.engine.callsTo("state::get") {
			if strings.Contains(p, "::") || strings.Contains(p, "Skills") {
				t.Errorf("state::get called with %s", p)
			}
		}
	})
}

func TestRecursionGuard(t *testing.T) {
	blocked := []string{"engine::workers", "state::get", "stream::publish", "iii.on_foo", "iii::internal", "mcp::handler", "a2a::send", "skills::register", "prompts::register"}
	for _, id := range blocked {
		t.Run(id, func(t *testing.T) {
			if !contract.IsInternal(id) {
				t.Errorf("%s is not blocked", id)
			}
		})
	}
	for _, id := range []string{"mem::observe", "brain::summarize", "my-worker::my-fn", "skill::fetch", "engine", "stateful::x"} {
		t.Run(id, func(t *testing.T) {
			if contract.IsInternal(id) {
				t.Errorf("%s is blocked", id)
			}
		})
	}
	t.Run("blocked sections are never triggered", func(t *testing.T) {
		f := newFixture(t, nil)
		for _, uri := range []string{"iii://fn/state/set", "iii://fn/mcp/handler", "iii://fn/skills/register", "iii://fn/prompts/list", "iii://fn/engine/functions/list", "iii://fn/stream/publish", "iii://fn/a2a/send", "iii://fn/iii/x"} {
			_, err := f.reg.resourcesRead(f.ctx, readIn(uri))
			if msg, code := errText(err); code != contract.CodeForbidden || !strings.Contains(msg, "internal namespace") {
				t.Errorf("%s: error = %q (%s)", uri, msg, code)
			}
		}
		if n := f.engine.callCount(); n != 0 {
			t.Errorf("engine was called %d times", n)
		}
	})
	t.Run("skill::fetch is reachable and fails its own validation", func(t *testing.T) {
		f := newFixture(t, nil)
		f.engine.handle("skill::fetch", func(ctx context.Context, data json.RawMessage) (json.RawMessage, error) {
			var in fetchSkillInput
			_ = json.Unmarshal(data, &in)
			_, err := f.reg.fetch(ctx, in)
			return nil, err
		})
		_, err := f.reg.resourcesRead(f.ctx, readIn("iii://fn/skill/fetch"))
		if msg, _ := errText(err); msg != "trigger skill::fetch: Provide uri or a non-empty uris array" {
			t.Errorf("error = %q", msg)
		}
	})
}

func TestSectionOutput(t *testing.T) {
	tests := []struct {
		name, res, mime, text string
	}{
		{"string", `"hello"`, contract.MIMEMarkdown, "hello"},
		{"content", `{"content":"hi","other":1}`, contract.MIMEMarkdown, "hi"},
		{"content not a string", `{"content":5}`, contract.MIMEJSON, "{\n  \"content\": 5\n}"},
		{"other object, keys sorted", `{"z":1,"a":{"y":[1,2],"b":null},"count":3}`, contract.MIMEJSON, "{\n  \"a\": {\n    \"b\": null,\n    \"y\": [\n      1,\n      2\n    ]\n  },\n  \"count\": 3,\n  \"z\": 1\n}"},
		{"array", `[1,"<b>"]`, contract.MIMEJSON, "[\n  1,\n  \"<b>\"\n]"},
		{"number keeps its text", `12345678901234567890`, contract.MIMEJSON, "12345678901234567890"},
		{"empty object", `{}`, contract.MIMEJSON, "{}"},
		{"null", `null`, contract.MIMEJSON, "null"},
		{"no result", ``, contract.MIMEJSON, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mime, text := sectionOutput(json.RawMessage(tt.res))
			if mime != tt.mime || text != tt.text {
				t.Errorf("sectionOutput(%s) = %s %q, want %s %q", tt.res, mime, text, tt.mime, tt.text)
			}
		})
	}
}

// TestSectionJSONKeepsLineSeparators (docs/reference.md#section-output):
// anything that is not a string or {content: string} is
// "pretty-printed JSON (2-space indent, keys alphabetical)" —
// serde_json::to_string_pretty, which writes U+2028 and U+2029 as raw
// characters, where Go's encoder always escapes them.
func TestSectionJSONKeepsLineSeparators(t *testing.T) {
	f := newFixture(t, nil)
	f.engine.returns("demo::sep", "{\"a\":\"x\u2028y\u2029z\"}")
	mime, text, _, err := f.reg.read(f.ctx, "iii://fn/demo/sep")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"x\u2028y\u2029z\"\n}"
	if mime != contract.MIMEJSON || text != want {
		t.Errorf("section = %s %q, want %s %q", mime, text, contract.MIMEJSON, want)
	}
}

func TestSectionTimeout(t *testing.T) {
	f := newFixture(t, nil)
	f.reg.timeout = 20 * time.Millisecond
	f.engine.handle("slow::fn", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	_, err := f.reg.resourcesRead(f.ctx, readIn("iii://fn/slow/fn"))
	if msg, code := errText(err); msg != "trigger slow::fn: invocation timed out" || code != contract.CodeUnavailable {
		t.Errorf("error = %q (%s)", msg, code)
	}
	f.engine.failWith("slow::fn", iii.ErrTimeout)
	_, err = f.reg.resourcesRead(f.ctx, readIn("iii://fn/slow/fn"))
	if msg, _ := errText(err); msg != "trigger slow::fn: invocation timed out" {
		t.Errorf("client timeout error = %q", msg)
	}
}

func TestReadStateFailureAndCorruptRow(t *testing.T) {
	f := newFixture(t, nil)
	f.engine.put("skills", "corrupt", `{"id":"corrupt","skill":7,"registered_at":"t"}`)
	_, err := f.reg.resourcesRead(f.ctx, readIn("iii://corrupt"))
	if msg, code := errText(err); msg != "decode stored skill corrupt: invalid type for field `skill`: number, expected string" || code != contract.CodeUnavailable {
		t.Errorf("corrupt row error = %q (%s)", msg, code)
	}
	f.engine.failWith("state::get", iii.ErrNotConnected)
	_, err = f.reg.resourcesRead(f.ctx, readIn("iii://anything"))
	if msg, code := errText(err); msg != "state::get: not connected to the engine (the worker reconnects on its own; retry shortly)" || code != contract.CodeUnavailable {
		t.Errorf("state failure error = %q (%s)", msg, code)
	}
}

func TestResourcesList(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "resend/email", "# Email flows\n")
	f.mustRegisterSkill(t, "resend", "no heading here")
	f.mustRegisterSkill(t, "blank", "# \n")
	got, err := f.reg.resourcesList(f.ctx, listInput{})
	if err != nil {
		t.Fatal(err)
	}
	size := func(n int64) *int64 { return &n }
	at := &resourceAnnotations{LastModified: f.fixedTimestamp}
	want := resourcesListOutput{Resources: []resource{
		{URI: "iii://skills", Name: "skills", Description: "Index of every registered skill", MimeType: contract.MIMEMarkdown},
		{URI: "iii://blank", Name: "", MimeType: contract.MIMEMarkdown, Size: size(3), Annotations: at},
		{URI: "iii://resend", Name: "resend", Description: "no heading here", MimeType: contract.MIMEMarkdown, Title: "resend", Size: size(15), Annotations: at},
		{URI: "iii://resend/email", Name: "Email flows", MimeType: contract.MIMEMarkdown, Title: "Email flows", Size: size(14), Annotations: at},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The 0.2 keys keep their meaning, with a skill's description beside
	// them when it has one (as the index entry's); D41's are added after
	// them. A skill without a description has no description key.
	b, _ := json.Marshal(got.Resources[2])
	if string(b) != `{"uri":"iii://resend","name":"resend","description":"no heading here","mimeType":"text/markdown","title":"resend","size":15,"annotations":{"lastModified":"`+f.fixedTimestamp+`"}}` {
		t.Errorf("entry JSON: %s", b)
	}
	b, _ = json.Marshal(got.Resources[3])
	if string(b) != `{"uri":"iii://resend/email","name":"Email flows","mimeType":"text/markdown","title":"Email flows","size":14,"annotations":{"lastModified":"`+f.fixedTimestamp+`"}}` {
		t.Errorf("entry JSON: %s", b)
	}

	f.engine.failWith("state::list", &iii.Error{Code: "LIST_ERROR", Message: "x"})
	got, err = f.reg.resourcesList(f.ctx, listInput{})
	if err != nil {
		t.Fatalf("a state failure must be swallowed: %v", err)
	}
	if diff := cmp.Diff([]resource{indexResource}, got.Resources); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestResourcesTemplates(t *testing.T) {
	f := newFixture(t, nil)
	got, err := f.reg.resourcesTemplates(f.ctx, emptyInput{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `{"resourceTemplates":[` +
		`{"uriTemplate":"iii://{skill_id}","name":"Skill","description":"Markdown body of a registered skill (1+ segments separated by '/')","mimeType":"text/markdown"},` +
		`{"uriTemplate":"iii://fn/{function_path}","name":"Skill section","description":"Trigger the function at ` + "`function_path`" + ` (each '/' becomes '::') with empty input and serve its output. e.g. ` + "`iii://fn/scope/echo`" + ` triggers ` + "`scope::echo`" + `.","mimeType":"text/markdown"}]}`
	if string(b) != want {
		t.Errorf("templates\n got %s\nwant %s", b, want)
	}
}

func TestResourcesReadMissingURI(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.reg.resourcesRead(f.ctx, readResourceInput{})
	msg, code := errText(err)
	if code != contract.CodeInvalidArgument || !strings.Contains(msg, "missing field `uri`") {
		t.Errorf("resources-read {} = %q (%s), want invalid_argument naming the missing uri", msg, code)
	}
}

// TestResourcesReadExplicitEmptyURI (docs/reference.md#uri-parsing):
// `skills::resources-read` with {"uri": ""} runs parse_uri("") and
// answers "Resource URI must start with iii://: " (serde only says
// "missing field `uri`" when the key is absent), so an explicit "" is not
// reported as missing.
func TestResourcesReadExplicitEmptyURI(t *testing.T) {
	f := newFixture(t, nil)
	_, err := call(t, f.reg, contract.FnSkillsResourcesRead, `{"uri":""}`)
	msg, code := errText(err)
	if want := "Resource URI must start with iii://: "; msg != want || code != contract.CodeInvalidArgument {
		t.Errorf("error = %q (%s), want %q (%s)", msg, code, want, contract.CodeInvalidArgument)
	}
}
