package registry

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// A write asked for its version ("version": true) answers with one that
// names the row as the engine stored it, or the delete; unasked, the
// answer is 0.2's (docs/decisions.md D78).
func TestWritesAnswerTheirVersionWhenAsked(t *testing.T) {
	f := newFixture(t, nil)
	stored := func(scope, key string) string {
		return catalog.VersionOf(scope, key, json.RawMessage(f.engine.value(scope, key))).Token()
	}

	reg, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: "a/b", Skill: "# body", Version: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(registerSkillOutput{ID: "a/b", RegisteredAt: f.fixedTimestamp, Version: stored("skills", "a/b")}, reg); diff != "" {
		t.Errorf("skills::register (-want +got):\n%s", diff)
	}
	unreg, err := f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: "a/b", Version: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(unregisterSkillOutput{ID: "a/b", Removed: true, Version: catalog.DeletedVersion("skills", "a/b").Token()}, unreg); diff != "" {
		t.Errorf("skills::unregister (-want +got):\n%s", diff)
	}

	in := validPrompt()
	in.Version = true
	preg, err := f.reg.registerPrompt(f.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(registerPromptOutput{Name: in.Name, RegisteredAt: f.fixedTimestamp, Version: stored("prompts", in.Name)}, preg); diff != "" {
		t.Errorf("prompts::register (-want +got):\n%s", diff)
	}
	punreg, err := f.reg.unregisterPrompt(f.ctx, unregisterPromptInput{Name: in.Name, Version: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(unregisterPromptOutput{Name: in.Name, Removed: true, Version: catalog.DeletedVersion("prompts", in.Name).Token()}, punreg); diff != "" {
		t.Errorf("prompts::unregister (-want +got):\n%s", diff)
	}

	// Through the function, as a caller sends it: a version that is not a
	// boolean is refused, naming the field.
	if _, err := call(t, f.reg, "skills::register", `{"id":"x","skill":"# x","version":"yes"}`); err == nil {
		t.Error(`skills::register with "version": "yes" succeeded`)
	} else if msg, code := errText(err); code != "invalid_argument" || msg != `invalid_argument: invalid payload for skills::register: field "version" must be a boolean, got string` {
		t.Errorf("error = %q (%s)", msg, code)
	}
}
