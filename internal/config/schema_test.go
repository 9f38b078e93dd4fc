package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// The settings are every key a file may hold, in file order: adding a
// field to Config without a setting fails here.
func TestSettingsAreEveryKey(t *testing.T) {
	var want []string
	for _, k := range topKeys {
		sub := map[string][]string{"scopes": scopeKeys, "tools": toolKeys, "search": searchKey, "mcp": mcpKeys, "lint": lintKeys}[k]
		if sub == nil {
			want = append(want, k)
		}
		for _, s := range sub {
			want = append(want, k+"."+s)
		}
	}
	if diff := cmp.Diff(want, Keys()); diff != "" {
		t.Errorf("settings (-yaml tags +settings):\n%s", diff)
	}
}

// resolvedSchema is Schema, resolved by the validator the local engine
// uses.
func resolvedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("the schema does not resolve: %v", err)
	}
	return r
}

func validates(t *testing.T, r *jsonschema.Resolved, value string) error {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	return r.Validate(v)
}

// A config rendered with Value satisfies the schema and reads back as
// itself, with and without a roots key.
func TestValueRoundTrips(t *testing.T) {
	r := resolvedSchema(t)
	rich, err := Parse([]byte(`scopes: {skills: team}
state_timeout_ms: 7500
skills: [docs/*.md]
prompts: [prompts/*.md]
base_dir: ..
allow_paths: [/srv/shared]
max_files: 10
max_response_bytes: 2048
max_frame_bytes: 2097152
cache_bytes: 0
roots: [agents]
index_max_tokens: 500
page_size: 2
tools: {enabled: true, workdir: w, env_allow: [GIT_*], max_concurrent: 2}
fs_poll_ms: 100
search: {embedder: embeddings::embed, embed_timeout_ms: 500}
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{"default": Default(), "every key": rich} {
		b, err := json.Marshal(Value(cfg))
		if err != nil {
			t.Fatal(err)
		}
		if err := validates(t, r, string(b)); err != nil {
			t.Errorf("%s: the schema refuses %s: %v", name, b, err)
		}
		back, err := ParseValue(b)
		if err != nil {
			t.Fatalf("%s: ParseValue(%s): %v", name, b, err)
		}
		if diff := cmp.Diff(cfg, back); diff != "" {
			t.Errorf("%s: read back (-want +got):\n%s", name, diff)
		}
		if keys := Changed(cfg, back); keys != nil {
			t.Errorf("%s: Changed = %v, want none", name, keys)
		}
	}
	if _, hasRoots := Value(Default())["roots"]; hasRoots {
		t.Error("a config without a roots key is rendered with one")
	}
}

// What the schema refuses, ParseValue refuses too, with a message naming
// the key, the value and what is allowed: the two read the same ranges.
func TestSchemaAndParseValueRefuseTheSameValues(t *testing.T) {
	r := resolvedSchema(t)
	for _, c := range []struct{ value, want string }{
		{`{"page_size":-1}`, "`page_size` must be a whole number of entries from 0 (everything in one answer) to 100000 (default 0), got -1"},
		{`{"page_size":"ten"}`, "`page_size` must be a whole number"},
		{`{"page_size":2.5}`, "`page_size` must be a whole number"},
		{`{"max_response_bytes":10}`, "`max_response_bytes` must be a whole number of bytes from 1024 (1 KiB) to 66060288 (63 MiB) (default 16777216, 16 MiB), got 10"},
		{`{"state_timeout_ms":0}`, "`state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got 0"},
		{`{"scopes":{"skills":"  "}}`, "`scopes.skills` must name an iii-state scope (a non-blank string), got \"  \""},
		{`{"tools":{"enabled":"yes"}}`, "`tools.enabled` must be true or false"},
		{`{"tools":{"max_concurrent":65}}`, "`tools.max_concurrent` must be a whole number of commands from 1 to 64"},
		{`{"roots":[""]}`, "`roots[0]` must be a directory path (a non-blank string)"},
		{`{"skills":"docs/*.md"}`, "`skills` must be a list of glob patterns"},
		{`{"search":{"embedder":"no namespace"}}`, "`search.embedder` must be the id of an iii function"},
		{`[1]`, "the config must be a mapping of keys"},
	} {
		if err := validates(t, r, c.value); err == nil {
			t.Errorf("the schema accepts %s", c.value)
		}
		_, err := ParseValue(json.RawMessage(c.value))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseValue(%s) = %v, want %q", c.value, err, c.want)
		} else if strings.Contains(err.Error(), "line ") {
			t.Errorf("ParseValue(%s) = %v: a value has no lines to name", c.value, err)
		}
	}
}

// The schema says types, ranges and blanks; Validate has the last word:
// an embedder in a namespace the worker reserves passes the schema but
// not ParseValue.
func TestValidateHasTheLastWord(t *testing.T) {
	value := `{"search":{"embedder":"state::set"}}`
	if err := validates(t, resolvedSchema(t), value); err != nil {
		t.Fatalf("the schema refuses %s: %v", value, err)
	}
	if _, err := ParseValue(json.RawMessage(value)); err == nil || !strings.Contains(err.Error(), `got "state::set"`) {
		t.Errorf("ParseValue(%s) = %v, want the embedder refused", value, err)
	}
}

// A value is read as a file is: null keeps a key's default, an unknown
// key is listed, a missing key has its default.
func TestParseValueReadsAsAFile(t *testing.T) {
	cfg, err := ParseValue(json.RawMessage(`{"page_size":3,"max_files":null,"page_sise":4}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.PageSize != 3 || cfg.MaxFiles != DefaultMaxFiles || cfg.Scopes.Skills != DefaultSkillsScope {
		t.Errorf("ParseValue = %+v", cfg)
	}
	if len(cfg.UnknownKeys) != 1 || cfg.UnknownKeys[0].Key != "page_sise" || cfg.UnknownKeys[0].Suggestion != "page_size" {
		t.Errorf("unknown keys = %+v, want page_sise with page_size suggested", cfg.UnknownKeys)
	}
	if keys := Changed(Default(), cfg); !cmp.Equal(keys, []string{"page_size"}) {
		t.Errorf("Changed = %v, want [page_size]", keys)
	}
}
