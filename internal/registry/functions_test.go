package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/search"
)

func TestFunctionsTable(t *testing.T) {
	f := newFixture(t, nil)
	var got []string
	for _, fn := range append(f.reg.Functions(), search.NewSearcher(search.SearcherConfig{View: f.reg.View()}).Function()) {
		got = append(got, fn.ID+" | "+fn.Description)
		if fn.Handler == nil || len(fn.RequestFormat) == 0 || len(fn.ResponseFormat) == 0 {
			t.Errorf("%s: handler or schemas missing", fn.ID)
		}
		if strings.Contains(fn.ID, "__") {
			t.Errorf("%s: '__' would break the mcp worker's name mapping", fn.ID)
		}
	}
	want := []string{
		"skills::register | Register a markdown skill so it appears as iii://{id} in resources/list.",
		"skills::unregister | Remove a registered skill by id.",
		"skills::list | List registered skills (id, body length, registered_at, origin) without bodies. `origin` is `state` for state-backed entries, `fs` for filesystem-backed.",
		"skills::resources-list | Internal: returns the MCP resources/list envelope with the iii://skills index + one iii://{id} entry per registered skill.",
		"skills::resources-read | Internal: resolves an iii:// URI and returns the MCP resources/read contents envelope.",
		"skills::resources-templates | Internal: returns the MCP resources/templates/list envelope.",
		"skills::fetch_skill | Fetches the content of one or more skill resources identified by iii:// URIs. When you encounter iii:// links in skill instructions, use this tool to retrieve their contents (batch with `uris` when helpful).",
		"skill::fetch | Fetches the content of one or more skill resources identified by iii:// URIs. When you encounter iii:// links in skill instructions, use this tool to retrieve their contents (batch with `uris` when helpful).",
		"prompts::register | Register a slash-command prompt; clients call prompts/get to render it.",
		"prompts::unregister | Remove a registered prompt by name.",
		"prompts::list | List registered prompts (name, function_id, arg count, registered_at, origin). `origin` is `state` for state-backed entries, `fs` for filesystem-backed.",
		"prompts::mcp-list | Internal: returns the MCP prompts/list envelope (full arguments schema for each registered prompt).",
		"prompts::mcp-get | Internal: dispatches a registered prompt handler and normalizes the result for MCP prompts/get.",
		"skill::search | Searches every skill for the ones that fit a need described in words, best first: id, iii:// uri, title, description, relevance score and the tokens its body costs to read. Use it instead of reading the whole iii://skills index when you know what you need; then fetch the best hits with skill::fetch.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}
}

func TestFunctionMetadata(t *testing.T) {
	f := newFixture(t, nil)
	meta := map[string]string{}
	for _, fn := range append(f.reg.Functions(), search.NewSearcher(search.SearcherConfig{View: f.reg.View()}).Function()) {
		meta[fn.ID] = string(fn.Metadata)
	}
	var got any
	if err := json.Unmarshal([]byte(meta[contract.FnSkillFetch]), &got); err != nil {
		t.Fatalf("skill::fetch metadata %q: %v", meta[contract.FnSkillFetch], err)
	}
	want := map[string]any{"tool": map[string]any{"label": "Fetch skill"}, "mcp": map[string]any{"expose": true}, "mcp.expose": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skill::fetch metadata (-want +got):\n%s", diff)
	}
	var searchMeta any
	if err := json.Unmarshal([]byte(meta[contract.FnSkillSearch]), &searchMeta); err != nil {
		t.Fatalf("skill::search metadata %q: %v", meta[contract.FnSkillSearch], err)
	}
	if diff := cmp.Diff(map[string]any{"tool": map[string]any{"label": "Search skills"}, "mcp": map[string]any{"expose": true}, "mcp.expose": true}, searchMeta); diff != "" {
		t.Errorf("skill::search metadata (-want +got):\n%s", diff)
	}
	for id, m := range meta {
		if id != contract.FnSkillFetch && id != contract.FnSkillSearch && m != "" {
			t.Errorf("%s has metadata %s, want none", id, m)
		}
	}
}

// schemaOf returns a function's request schema as a generic map.
func requestSchema(t *testing.T, reg *Registry, id string) map[string]any {
	t.Helper()
	for _, fn := range reg.Functions() {
		if fn.ID == id {
			var s map[string]any
			if err := json.Unmarshal(fn.RequestFormat, &s); err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("no function %s", id)
	return nil
}

func TestRequestSchemas(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		id       string
		required []any
		docs     map[string]string // property → description substring
	}{
		{contract.FnSkillsRegister, []any{"id", "skill"}, map[string]string{"id": "64 chars per segment, 1024 in total", "skill": "Markdown body served at iii://{id}."}},
		{contract.FnSkillsUnregister, []any{"id"}, nil},
		{contract.FnSkillsResourcesRead, []any{"uri"}, nil},
		{contract.FnSkillFetch, nil, map[string]string{"uri": `A single iii:// URI to read. Must start with "iii://".`, "uris": "Multiple iii:// URIs to read and concatenate into one response.", "base": "To follow links written in a document"}},
		{contract.FnPromptsRegister, []any{"name", "description", "function_id"}, map[string]string{
			"name":        "Unique prompt name (lowercase ASCII, kebab/underscore, max 64 chars).",
			"description": "Free-text description shown in the client's prompt picker.",
			"function_id": "Handler function called on prompts/get with the supplied arguments.",
		}},
		{contract.FnPromptsMCPGet, []any{"name"}, nil},
		{contract.FnSkillsList, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			s := requestSchema(t, f.reg, tt.id)
			if s["type"] != "object" {
				t.Errorf("type = %v, want object", s["type"])
			}
			req, _ := s["required"].([]any)
			if diff := cmp.Diff(tt.required, req); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
			props, _ := s["properties"].(map[string]any)
			for prop, doc := range tt.docs {
				p, _ := props[prop].(map[string]any)
				if d, _ := p["description"].(string); !strings.Contains(d, doc) {
					t.Errorf("%s description = %q, want it to contain %q", prop, d, doc)
				}
			}
		})
	}
}

// call runs a function the way the iii client does: raw payload in, the
// handler's value out.
func call(t *testing.T, reg *Registry, id, payload string) (string, error) {
	t.Helper()
	for _, fn := range reg.Functions() {
		if fn.ID != id {
			continue
		}
		var data json.RawMessage
		if payload != "" {
			data = json.RawMessage(payload)
		}
		out, err := fn.Handler(t.Context(), iii.Request{FunctionID: id, Data: data})
		if err != nil {
			return "", err
		}
		b, merr := json.Marshal(out)
		if merr != nil {
			t.Fatal(merr)
		}
		return string(b), nil
	}
	t.Fatalf("no function %s", id)
	return "", nil
}

func TestLenientPayloads(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "a", "# A")
	tests := []struct {
		id, payload, wantPrefix string
	}{
		{contract.FnSkillsList, ``, `{"skills":[{"id":"a"`},
		{contract.FnSkillsList, `null`, `{"skills":[{"id":"a"`},
		{contract.FnSkillsList, `{"_caller_worker_id":"w-1"}`, `{"skills":[{"id":"a"`},
		{contract.FnSkillsResourcesList, `{"cursor":"c","_meta":{"progressToken":1}}`, `{"resources":[{"uri":"iii://skills"`},
		{contract.FnSkillsResourcesTemplates, `null`, `{"resourceTemplates":[`},
		{contract.FnSkillsResourcesRead, `{"uri":"iii://a","_meta":{}}`, `{"contents":[{"uri":"iii://a","mimeType":"text/markdown","text":"# A"}]}`},
		{contract.FnPromptsMCPList, `null`, `{"prompts":[]}`},
		{contract.FnPromptsList, `{}`, `{"prompts":[]}`},
		{contract.FnSkillFetch, `{"uri":"iii://a","uris":null}`, `"# iii://a\n\n# A"`},
		{contract.FnSkillsRegister, `{"id":"b","skill":"x","tools":[{"name":"b::t"}],"_caller_worker_id":"w"}`, `{"id":"b","registered_at":`},
	}
	for _, tt := range tests {
		t.Run(tt.id+" "+tt.payload, func(t *testing.T) {
			got, err := call(t, f.reg, tt.id, tt.payload)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, tt.wantPrefix) {
				t.Errorf("got %s\nwant prefix %s", got, tt.wantPrefix)
			}
		})
	}
}

func TestWirePayloadErrors(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		id, payload, wantCode, wantSubstr string
	}{
		{contract.FnSkillsRegister, `{"id":5,"skill":"x"}`, iii.CodeInvalidArgument, `"id"`},
		{contract.FnSkillFetch, `{"uris":"iii://a"}`, iii.CodeInvalidArgument, `"uris"`},
		{contract.FnSkillsList, `[]`, iii.CodeInvalidArgument, "payload"},
		{contract.FnSkillsRegister, `{}`, contract.CodeInvalidArgument, "id must be non-empty"},
		{contract.FnSkillFetch, `{}`, contract.CodeInvalidArgument, "Provide uri or a non-empty uris array"},
		{contract.FnPromptsMCPGet, `{"name":"ghost","arguments":null}`, contract.CodeNotFound, "Prompt not found: ghost"},
		{contract.FnSkillsResourcesRead, `{"uri":"iii://fn/state/set"}`, contract.CodeForbidden, "internal namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.id+" "+tt.payload, func(t *testing.T) {
			_, err := call(t, f.reg, tt.id, tt.payload)
			var coded interface{ ErrorCode() string }
			if !errors.As(err, &coded) || coded.ErrorCode() != tt.wantCode || !strings.Contains(err.Error(), tt.wantSubstr) {
				t.Errorf("error = %v, want code %s containing %q", err, tt.wantCode, tt.wantSubstr)
			}
		})
	}
}

func TestAliasMatchesCanonicalFetch(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "alpha", "# alpha\n\nA.")
	f.mustRegisterSkill(t, "beta", "# beta\n\nB.")
	payload := `{"uris":["iii://alpha","iii://beta"]}`
	canonical, err1 := call(t, f.reg, contract.FnSkillsFetch, payload)
	alias, err2 := call(t, f.reg, contract.FnSkillFetch, payload)
	if err1 != nil || err2 != nil || canonical != alias {
		t.Errorf("skills::fetch_skill = %s (%v), skill::fetch = %s (%v)", canonical, err1, alias, err2)
	}
}

// prompts::register's schema offers values on an argument, as a list of
// strings, and states the limits argValues enforces.
func TestRegisterPromptSchemaValues(t *testing.T) {
	f := newFixture(t, nil)
	s := requestSchema(t, f.reg, contract.FnPromptsRegister)
	args, _ := s["properties"].(map[string]any)["arguments"].(map[string]any)
	items, _ := args["items"].(map[string]any)
	values, _ := items["properties"].(map[string]any)["values"].(map[string]any)
	if values["type"] != "array" || values["items"].(map[string]any)["type"] != "string" {
		t.Fatalf("arguments[].values schema = %v, want an array of strings", values)
	}
	d, _ := values["description"].(string)
	for _, limit := range []string{fmt.Sprintf("At most %d,", maxArgValues), fmt.Sprintf("at most %d bytes", maxArgValueBytes)} {
		if !strings.Contains(d, limit) {
			t.Errorf("values description %q does not state %q", d, limit)
		}
	}
}
