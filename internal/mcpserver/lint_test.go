package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/lint/linttest"
)

// listed is one page of a list method as raw entries by their key (a
// uri or a name), as the client reads them off the wire.
func listed(t *testing.T, raw *rawSession, method, field, key string) map[string]json.RawMessage {
	t.Helper()
	res, err := raw.call(method, map[string]any{})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	var page map[string]json.RawMessage
	var entries []json.RawMessage
	if err := json.Unmarshal(res, &page); err != nil || json.Unmarshal(page[field], &entries) != nil {
		t.Fatalf("%s = %s: no %s array", method, res, field)
	}
	out := map[string]json.RawMessage{}
	for _, e := range entries {
		var k map[string]json.RawMessage
		var name string
		if json.Unmarshal(e, &k) != nil || json.Unmarshal(k[key], &name) != nil {
			t.Fatalf("%s: entry %s has no %s", method, e, key)
		}
		out[name] = e
	}
	return out
}

// Under lint.flagged: note the MCP listings note a flagged skill's and a
// flagged prompt's findings in the entry's _meta, at
// contract.MetaKeyLint, in the shape of skills::list's lint field
// (docs/decisions.md D65): resources/list, prompts/list, and the MCP
// Skills extension's skills/list and skills/get. Under serve nothing is
// noted, and an unflagged entry is the same bytes in both modes.
func TestMCPListsNoteFlaggedContent(t *testing.T) {
	curl, err := linttest.Read("hostile", "curl-sh.md")
	if err != nil {
		t.Fatal(err)
	}
	ignore, err := linttest.Read("hostile", "injection-ignore.md")
	if err != nil {
		t.Fatal(err)
	}
	clean, err := linttest.Read("clean", "near-misses.md")
	if err != nil {
		t.Fatal(err)
	}
	// The flagged entries by key, with the notes each must carry under note.
	flagged := map[string][]linttest.At{
		"iii://curl-sh":            linttest.Hostile["curl-sh.md"],
		"skill://curl-sh/SKILL.md": linttest.Hostile["curl-sh.md"],
		"flagged-prompt":           linttest.Hostile["injection-ignore.md"],
	}
	// Every list must hold its flagged entry and an unflagged one.
	want := map[string][]string{
		"resources/list": {"iii://curl-sh", "iii://near-misses", "iii://skills"},
		"prompts/list":   {"flagged-prompt", "clean-prompt"},
		MethodSkillsList: {"skill://curl-sh/SKILL.md", "skill://near-misses/SKILL.md"},
		MethodSkillsGet:  {"skill://curl-sh/SKILL.md", "skill://near-misses/SKILL.md"},
	}
	seen := map[lint.Mode]map[string]map[string]json.RawMessage{} // mode → method → key → entry
	for _, mode := range []lint.Mode{lint.Note, lint.Serve} {
		t.Run(string(mode), func(t *testing.T) {
			// One clock for both runs: resources/list's lastModified is
			// the registration time.
			r := newRigWith(t, rigConfig{flagged: mode, now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)})
			r.call(t, "skills::register", map[string]string{"id": "curl-sh", "skill": curl})
			r.call(t, "skills::register", map[string]string{"id": "near-misses", "skill": clean})
			r.call(t, "prompts::register", map[string]any{"name": "flagged-prompt", "description": ignore, "function_id": "test::prompt"})
			r.call(t, "prompts::register", map[string]any{"name": "clean-prompt", "description": "Triage a topic.", "function_id": "test::prompt"})
			raw := r.rawSession(t)
			got := map[string]map[string]json.RawMessage{
				"resources/list": listed(t, raw, "resources/list", "resources", "uri"),
				"prompts/list":   listed(t, raw, "prompts/list", "prompts", "name"),
				MethodSkillsList: listed(t, raw, MethodSkillsList, "skills", "uri"),
				MethodSkillsGet:  {},
			}
			for _, uri := range want[MethodSkillsGet] {
				res, err := raw.call(MethodSkillsGet, map[string]any{"uri": uri})
				var out struct{ Skill json.RawMessage }
				if err != nil || json.Unmarshal(res, &out) != nil {
					t.Fatalf("skills/get %s = %s, %v", uri, res, err)
				}
				got[MethodSkillsGet][uri] = out.Skill
			}
			for method, keys := range want {
				for _, key := range keys {
					e, ok := got[method][key]
					if !ok {
						t.Errorf("%s: %s is not listed; got %s", method, key, cmp.Diff(nil, got[method]))
						continue
					}
					var entry struct {
						Meta map[string]json.RawMessage `json:"_meta"`
					}
					if err := json.Unmarshal(e, &entry); err != nil {
						t.Fatal(err)
					}
					notes, isFlagged := flagged[key]
					if mode != lint.Note || !isFlagged {
						if entry.Meta != nil {
							t.Errorf("%s: %s %s has _meta: %s", mode, method, key, e)
						}
						continue
					}
					var gotNotes []linttest.At
					if len(entry.Meta) != 1 || json.Unmarshal(entry.Meta[contract.MetaKeyLint], &gotNotes) != nil {
						t.Errorf("note: %s %s = %s, want a _meta of %s alone", method, key, e, contract.MetaKeyLint)
					}
					if d := cmp.Diff(notes, gotNotes); d != "" {
						t.Errorf("note: %s %s notes (-want +got):\n%s", method, key, d)
					}
				}
			}
			if mode == lint.Note { // and the official client reads them
				res, err := r.session.ListPrompts(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range res.Prompts {
					if (p.Meta[contract.MetaKeyLint] != nil) != (p.Name == "flagged-prompt") {
						t.Errorf("the SDK client's prompts/list: %s has _meta %v", p.Name, p.Meta)
					}
				}
			}
			seen[mode] = got
		})
	}
	for method, entries := range seen[lint.Serve] {
		for key, e := range entries {
			if _, isFlagged := flagged[key]; !isFlagged && string(seen[lint.Note][method][key]) != string(e) {
				t.Errorf("%s: unflagged %s differs between note and serve:\n note  %s\n serve %s", method, key, seen[lint.Note][method][key], e)
			}
		}
	}
}
