package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/contract"
)

// skill__search takes every field skill::search takes, and answers each
// input as the function does: the same results for good input, the
// function's own error for bad input (issue 30, deliverable 4). Before,
// group was refused by the tool's schema and max_tokens: 0 was taken as
// no bound.
func TestSearchToolMatchesTheFunction(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.call(t, "skills::register", map[string]string{"id": "pg/backup", "skill": "# Postgres backups\n\nTake a base backup and keep the WAL. See [restore](references/restore.md)."})
	r.call(t, "skills::register", map[string]string{"id": "pg/backup/references/restore", "skill": "# Restoring a Postgres backup\n\nReplay the WAL onto the base backup."})

	tools, err := r.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != "skill__search" {
			continue
		}
		schema, _ := json.Marshal(tl.InputSchema)
		for _, field := range []string{`"query"`, `"limit"`, `"max_tokens"`, `"group"`} {
			if !strings.Contains(string(schema), field) {
				t.Errorf("skill__search's input schema lacks %s: %s", field, schema)
			}
		}
	}

	for _, args := range []map[string]any{
		{"query": "restore a postgres backup"},
		{"query": "restore a postgres backup", "group": false},
		{"query": "restore a postgres backup", "group": true, "limit": 1},
		{"query": "restore a postgres backup", "max_tokens": 40},
		{"query": "restore a postgres backup", "group": "no"},
		{"query": "restore a postgres backup", "max_tokens": 0},
		{"query": "restore a postgres backup", "limit": 0},
		{"query": "restore a postgres backup", "limit": "3"},
		{"query": ""},
		{},
	} {
		in, _ := json.Marshal(args)
		direct, ferr := r.caller.Call(ctx, contract.FnSkillSearch, args)
		out, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__search", Arguments: args})
		if err != nil {
			t.Fatalf("skill__search %s: a protocol error, want a tool result: %v", in, err)
		}
		text := out.Content[0].(*mcp.TextContent).Text
		if ferr != nil {
			if !out.IsError || !strings.Contains(text, ferr.Error()) && !strings.Contains(ferr.Error(), text) {
				t.Errorf("skill__search %s = %q (error %v); skill::search refused it with %q, want that error", in, text, out.IsError, ferr)
			}
			continue
		}
		if out.IsError {
			t.Errorf("skill__search %s refused it: %q; skill::search answered %s", in, text, direct)
			continue
		}
		var viaTool, viaFunction contract.SearchResults
		if json.Unmarshal([]byte(text), &viaTool) != nil || json.Unmarshal(direct, &viaFunction) != nil {
			t.Fatalf("unreadable answers: %s / %s", text, direct)
		}
		a, _ := json.Marshal(viaTool)
		b, _ := json.Marshal(viaFunction)
		if string(a) != string(b) {
			t.Errorf("skill__search %s = %s\nskill::search answered %s", in, a, b)
		}
	}

	// group: false ranks the reference on its own, as a result of its own.
	out, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__search", Arguments: map[string]any{"query": "replay the WAL restore", "group": false}})
	if err != nil || out.IsError {
		t.Fatalf("group false: %+v, %v", out, err)
	}
	if text := out.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"id":"pg/backup/references/restore"`) {
		t.Errorf("group false did not rank the reference as a result: %s", text)
	}
}
