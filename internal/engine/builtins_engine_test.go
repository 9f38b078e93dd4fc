package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

func TestWorkersRegisterStoresMetadata(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.registerWorker(`{"runtime":"go","version":"0.2.5","name":" skills\u202e\u0007 ","os":"linux amd64",` +
		`"pid":4242,"description":"Agentic content registry","isolation":null,"telemetry":{"language":"go"}}`)
	got := s.Workers()[0]
	want := Worker{ID: p.id, Name: "skills", Runtime: "go", Version: "0.2.5", OS: "linux amd64", PID: 4242,
		Description: "Agentic content registry", RemoteIP: "127.0.0.1"}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Worker{}, "ConnectedAt", "Functions")); diff != "" {
		t.Errorf("Workers()[0] (-want +got):\n%s", diff)
	}

	// Void, as every SDK sends it: no answer, metadata still applied.
	p.send(wire.InvokeFunction{FunctionID: "engine::workers::register", Data: []byte(`{"name":"renamed"}`),
		Action: &wire.Action{Type: wire.ActionVoid}})
	p.barrier()
	got = s.Workers()[0]
	if got.Name != "renamed" || got.Runtime != "unknown" || got.Version != "" || got.PID != 4242 || got.OS != "linux amd64" {
		t.Errorf("after a second register: %+v (runtime defaults to unknown, version is replaced, the rest kept)", got)
	}

	tests := []struct{ data, msg string }{
		{`{"pid":-1}`, "invalid value: integer `-1`, expected u32"},
		{`{"pid":"12"}`, `invalid type: string "12", expected u32`},
		{`{"name":5}`, "invalid type: integer `5`, expected a string"},
		{`{"telemetry":"x"}`, `invalid type: string "x", expected struct WorkerConnectionTelemetryMeta`},
		{`[]`, "invalid type: sequence, expected struct RegisterWorkerInput"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(deserr("engine::workers::register", tt.msg), callOutcome(p, "engine::workers::register", tt.data)); diff != "" {
			t.Errorf("register %s (-want +got):\n%s", tt.data, diff)
		}
	}
}

func TestWorkersListHidesWorkersWithoutPid(t *testing.T) {
	s := newTestServer(t)
	visible, hidden, asker := dial(t, s), dial(t, s), dial(t, s)
	visible.registerWorker(`{"runtime":"go","version":"0.2.5","name":"skills","os":"linux","pid":7}`)
	visible.register("skills::list")
	hidden.registerWorker(`{"name":"no-pid"}`)
	var out struct{ Workers []map[string]any }
	if err := json.Unmarshal(asker.callOK("engine::workers::list", `{}`), &out); err != nil {
		t.Fatal(err)
	}
	for _, w := range out.Workers {
		if w["connected_at_ms"].(float64) <= 0 {
			t.Errorf("row without connected_at_ms: %v", w)
		}
		delete(w, "connected_at_ms")
	}
	want := []map[string]any{
		{"name": "iii-engine-functions", "description": engineFnWorkerDescription, "version": "0.22.1",
			"id": "iii-engine-functions", "runtime": "engine", "os": nil, "status": "available", "function_count": 5.0,
			"active_invocations": 0.0, "isolation": "in-process", "ip_address": nil},
		{"name": "iii-state", "description": stateWorkerDescription, "version": "0.22.1", "id": "iii-state",
			"runtime": "engine", "os": nil, "status": "available", "function_count": 5.0, "active_invocations": 0.0,
			"isolation": "in-process", "ip_address": nil},
		{"name": "skills", "description": nil, "version": "0.2.5", "id": visible.id, "runtime": "go", "os": "linux",
			"status": "connected", "function_count": 1.0, "active_invocations": 0.0, "isolation": nil,
			"ip_address": "127.0.0.1"},
	}
	if diff := cmp.Diff(want, out.Workers); diff != "" {
		t.Errorf("engine::workers::list (-want +got):\n%s", diff)
	}
	if got := string(asker.callOK("engine::workers::list", `{"runtime":"go","search":"SKI"}`)); !strings.Contains(got, visible.id) ||
		strings.Contains(got, "iii-state") {
		t.Errorf("filtered list = %s", got)
	}
}

func TestFunctionsList(t *testing.T) {
	s := newTestServer(t)
	named, anon, asker := dial(t, s), dial(t, s), dial(t, s)
	named.send(wire.RegisterFunction{ID: "skills::register", Description: "Create or replace a skill"})
	named.send(wire.RegisterFunction{ID: "skill::fetch", Description: "Fetch skill", Metadata: []byte(`{"mcp.expose":true}`)})
	named.send(wire.RegisterFunction{ID: "skills::hidden", Metadata: []byte(`{"internal":true}`)})
	named.registerWorker(`{"name":"skills"}`)
	anon.send(wire.RegisterFunction{ID: "mcp::tools", Description: "lists skills tools"})
	anon.send(wire.RegisterFunction{ID: "engine::queue::list_topics"})
	anon.barrier()

	ids := func(input string) []string {
		t.Helper()
		var out struct {
			Functions []struct {
				FunctionID string `json:"function_id"`
				WorkerName string `json:"worker_name"`
			}
		}
		if err := json.Unmarshal(asker.callOK("engine::functions::list", input), &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range out.Functions {
			got = append(got, f.FunctionID+"@"+f.WorkerName)
		}
		return got
	}
	tests := []struct {
		input string
		want  []string
	}{
		{`{}`, []string{"engine::queue::list_topics@engine", "mcp::tools@mcp", "skill::fetch@skills", "skills::register@skills",
			"state::delete@iii-state", "state::get@iii-state", "state::list@iii-state", "state::list_groups@iii-state", "state::set@iii-state"}},
		{`{"prefix":"skill"}`, []string{"skill::fetch@skills", "skills::register@skills"}},
		{`{"worker":"skills","include_internal":true}`, []string{"skill::fetch@skills", "skills::hidden@skills", "skills::register@skills"}},
		{`{"workers":["mcp","iii-state"],"prefix":"state::l"}`, []string{"state::list@iii-state", "state::list_groups@iii-state"}},
		{`{"search":"SKILL"}`, []string{"skill::fetch@skills", "skills::register@skills", "mcp::tools@mcp"}},
		{`{"include_internal":true,"prefix":"engine::"}`, []string{"engine::functions::info@iii-engine-functions",
			"engine::functions::list@iii-engine-functions", "engine::queue::list_topics@engine", "engine::triggers::list@iii-engine-functions",
			"engine::workers::list@iii-engine-functions", "engine::workers::register@iii-engine-functions"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ids(tt.input)); diff != "" {
			t.Errorf("engine::functions::list %s (-want +got):\n%s", tt.input, diff)
		}
	}
	var row struct{ Functions []map[string]any }
	if err := json.Unmarshal(asker.callOK("engine::functions::list", `{"prefix":"skill::"}`), &row); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"function_id": "skill::fetch", "worker_name": "skills", "description": "Fetch skill",
		"metadata": map[string]any{"mcp.expose": true}}}
	if diff := cmp.Diff(want, row.Functions); diff != "" {
		t.Errorf("row shape (-want +got):\n%s", diff)
	}
}

func TestFunctionsInfoReturnsRegisteredSchemas(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	p.send(wire.RegisterFunction{ID: "skills::register", Description: "Create or replace a skill",
		RequestFormat:  []byte(`{"type":"object","properties":{"id":{"type":"string"}}}`),
		ResponseFormat: []byte(`{"type":"object"}`)})
	p.send(wire.RegisterTriggerType{ID: "skills::on-change", Description: ""})
	p.send(wire.RegisterTrigger{ID: "t1", TriggerType: "skills::on-change", FunctionID: "skills::register", Config: []byte(`{"x":1}`)})
	expect[wire.RegisterTrigger](p)

	tests := []struct {
		name, input string
		want        outcome
	}{
		{"single", `{"function_id":"skills::register"}`, result(`{"description":"Create or replace a skill",` +
			`"function_id":"skills::register","registered_triggers":[{"config":{"x":1},"id":"t1","trigger_type":"skills::on-change"}],` +
			`"request_schema":{"properties":{"id":{"type":"string"}},"type":"object"},"response_schema":{"type":"object"},` +
			`"worker_name":"skills"}`)},
		{"batch", `{"function_ids":["state::get","nope","nope"]}`, result(`{"functions":[{"description":"Get a value from state",` +
			`"function_id":"state::get","registered_triggers":[],"worker_name":"iii-state"},{"error":"not_found","function_id":"nope"}]}`)},
		{"unknown", `{"function_id":"nope"}`, outcome{Error: &wire.ErrorBody{Code: "NOT_FOUND", Message: "Function 'nope' is not registered."}}},
		{"both", `{"function_id":"a","function_ids":["a"]}`, outcome{Error: &wire.ErrorBody{Code: "INVALID_ARGUMENTS",
			Message: "pass either `function_id` or `function_ids`, not both"}}},
		{"neither", `{}`, outcome{Error: &wire.ErrorBody{Code: "INVALID_ARGUMENTS",
			Message: "missing field `function_id` (or `function_ids` for a batch)"}}},
		{"empty batch", `{"function_ids":[]}`, outcome{Error: &wire.ErrorBody{Code: "INVALID_ARGUMENTS",
			Message: "`function_ids` must be a non-empty array of function ids"}}},
		{"mistyped", `{"function_ids":[1]}`, deserr("engine::functions::info", "invalid type: integer `1`, expected a string")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			if diff := cmp.Diff(tt.want, callOutcome(p, "engine::functions::info", tt.input)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	p.t = t
	f, _ := s.Function("skills::register")
	if string(f.RequestFormat) != `{"properties":{"id":{"type":"string"}},"type":"object"}` {
		t.Errorf("Function().RequestFormat = %s", f.RequestFormat)
	}
}

func TestTriggersListShowsTypesAndTheirWorkers(t *testing.T) {
	s := newTestServer(t)
	prov, caller := dial(t, s), dial(t, s)
	prov.registerWorker(`{"name":"provider"}`)
	prov.send(wire.RegisterTriggerType{ID: "acme::changes", Description: "acme changes"})
	prov.barrier()
	got := string(caller.callOK("engine::triggers::list", `{}`))
	want := `{"triggers":[{"description":"acme changes","id":"acme::changes","worker_name":"provider"},` +
		`{"description":"` + triggerStateDescription + `","id":"state","worker_name":"iii-state"}]}`
	if got != want {
		t.Errorf("engine::triggers::list =\n%s\nwant\n%s", got, want)
	}
	if got := string(caller.callOK("engine::triggers::list", `{"prefix":"st"}`)); !strings.Contains(got, `"id":"state"`) || strings.Contains(got, "acme") {
		t.Errorf("prefix st = %s", got)
	}
	if got := string(caller.callOK("engine::triggers::list", `{"include_internal":true}`)); !strings.Contains(got, `"id":"engine::functions-available"`) {
		t.Errorf("include_internal = %s", got)
	}
}
