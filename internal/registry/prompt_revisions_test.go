package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
)

// registerPrompts registers each definition of greet in turn, as worker w.
func (f *fixture) registerPrompts(t *testing.T, descriptions ...string) {
	t.Helper()
	hint := "Who to greet"
	for i, d := range descriptions {
		in := registerPromptInput{Name: "greet", Description: d, FunctionID: "w::greet", CallerWorker: "w"}
		if i == 0 {
			in.Arguments = []promptArgument{{Name: "who", Description: &hint, Required: true, Values: []string{"world"}}}
		}
		if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
			t.Fatal(err)
		}
	}
}

// storedPrompt is the row the view serves at name.
func (f *fixture) storedPrompt(t *testing.T, name string) catalog.PromptRow {
	t.Helper()
	l, err := f.reg.view.Prompts(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := l.Prompt(name)
	if !ok || p.Origin != originState {
		t.Fatalf("%s is not a stored prompt: %+v", name, l.Prompts)
	}
	return p.Row
}

// A prompt rollback restores a kept definition, arguments and all, as a
// new revision, fires one register event, and prompts::list names the
// revision when asked (docs/decisions.md D86).
func TestPromptRollbackIsANewRevision(t *testing.T) {
	f := newHistoryFixture(t, 3)
	f.registerPrompts(t, "Say hello", "Say hello warmly", "Say hello loudly")
	first := f.storedPrompt(t, "greet") // the third definition
	before := len(f.promptEvents.fired())
	out, err := f.reg.rollbackPrompt(f.ctx, promptRollbackInput{Name: "greet", Revision: 1, CallerWorker: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (promptRollbackOutput{Name: "greet", Revision: 4, RestoredFrom: 1, RegisteredAt: f.fixedTimestamp}); out != want {
		t.Errorf("rollback = %+v, want %+v", out, want)
	}
	if got := f.promptEvents.fired()[before:]; !cmp.Equal(got, []string{`{"op":"register","name":"greet"}`}) {
		t.Errorf("on-change events of the rollback = %v, want one register", got)
	}
	hint := "Who to greet"
	want := catalog.PromptRow{Name: "greet", Description: "Say hello", FunctionID: "w::greet", RegisteredAt: f.fixedTimestamp, Revision: 4,
		Arguments: []catalog.PromptArg{{Name: "who", Description: &hint, Required: true, Values: []string{"world"}}}}
	if diff := cmp.Diff(want, f.storedPrompt(t, "greet")); diff != "" {
		t.Errorf("stored row after the rollback (-want +got):\n%s", diff)
	}
	if first.Revision != 3 {
		t.Errorf("revision before the rollback = %d, want 3", first.Revision)
	}
	h, err := f.reg.promptHistory(f.ctx, promptHistoryInput{Name: "greet"})
	if err != nil || len(h.Revisions) != 4 || h.Revisions[0].Worker != "operator" || h.Revisions[0].SHA256 != h.Revisions[3].SHA256 {
		t.Errorf("prompts::history after the rollback = %+v, %v; want 4 revisions, the newest by operator with revision 1's digest", h, err)
	}
	list, err := f.reg.listPromptsAfter(f.ctx, listPromptsInput{Revision: true})
	if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Revision != 4 {
		t.Errorf("prompts::list {revision:true} = %+v, %v; want greet at revision 4", list, err)
	}
}

// Without "revision": true, prompts::list answers 0.2's bytes: no member
// is added to an entry.
func TestPromptsListNamesRevisionsOnlyWhenAsked(t *testing.T) {
	f := newHistoryFixture(t, 3)
	f.registerPrompts(t, "Say hello")
	for _, asked := range []bool{false, true} {
		out, err := f.reg.listPromptsAfter(f.ctx, listPromptsInput{Revision: asked})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(out)
		if got := strings.Contains(string(b), `"revision":1`); got != asked {
			t.Errorf("prompts::list {revision:%v} = %s: names a revision %v", asked, b, got)
		}
	}
}

// A prompt rollback of what is not there answers not_found naming it; a
// bad name or revision is invalid_argument; the state is unchanged.
func TestPromptRollbackBadInput(t *testing.T) {
	f := newHistoryFixture(t, 1)
	f.registerPrompts(t, "Say hello", "Say hello warmly")
	for _, tc := range []struct {
		name     string
		in       promptRollbackInput
		code     string
		contains string
	}{
		{"unknown name", promptRollbackInput{Name: "ghost", Revision: 1}, contract.CodeNotFound, "Prompt not found: ghost has no revision history"},
		{"bad name", promptRollbackInput{Name: "Bad Name", Revision: 1}, contract.CodeInvalidArgument, "Bad Name"},
		{"unknown revision", promptRollbackInput{Name: "greet", Revision: 9}, contract.CodeNotFound, "prompt greet has no revision 9 (its revisions are 1 to 2)"},
		{"definition not kept", promptRollbackInput{Name: "greet", Revision: 1}, contract.CodeNotFound, "revision 1 of prompt greet is no longer kept"},
		{"revision 0", promptRollbackInput{Name: "greet"}, contract.CodeInvalidArgument, "as prompts::history lists them, got 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.reg.rollbackPrompt(f.ctx, tc.in)
			msg, code := errText(err)
			if code != tc.code || !strings.Contains(msg, tc.contains) {
				t.Errorf("error = %q (%s), want %s containing %q", msg, code, tc.code, tc.contains)
			}
		})
	}
	if row := f.storedPrompt(t, "greet"); row.Description != "Say hello warmly" || row.Revision != 2 {
		t.Errorf("row after refused rollbacks = %+v; want revision 2, Say hello warmly", row)
	}
	if len(f.promptEvents.fired()) != 2 {
		t.Errorf("on-change events = %v, want the two registers only", f.promptEvents.fired())
	}
}
