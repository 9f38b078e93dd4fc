package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

func TestRegisterSkillValidation(t *testing.T) {
	a65 := strings.Repeat("a", 65)
	tests := []struct {
		name, id, body string
		wantErr        string
	}{
		{"empty id", "", "x", "id must be non-empty"},
		{"uppercase", "Bad-Id", "x", `invalid id (segment 1 of "Bad-Id"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "Bad-Id"`},
		{"space", "with space", "x", `invalid id (segment 1 of "with space"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "with space"`},
		{"leading slash", "/a", "x", `id may not have a leading or trailing '/': "/a"`},
		{"trailing slash", "a/", "x", `id may not have a leading or trailing '/': "a/"`},
		{"doubled slash", "doubled//slash", "x", `invalid id (segment 2 of "doubled//slash"): segment must be non-empty`},
		{"colon", "with::colon", "x", `invalid id (segment 1 of "with::colon"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "with::colon"`},
		{"65 chars", a65, "x", `invalid id (segment 1 of "` + a65 + `"): segment too long (65 chars; max 64): "` + a65 + `"`},
		{"reserved fn", "fn", "x", `id may not have "fn" as its first segment (reserved as the iii://fn/ section-URI marker): "fn"`},
		{"reserved fn/", "fn/x", "x", `id may not have "fn" as its first segment (reserved as the iii://fn/ section-URI marker): "fn/x"`},
		{"empty body", "ok", "", "skill must be non-empty"},
		{"whitespace body", "ok", " \n\t ", "skill must be non-empty"},
		{"too large", "ok", strings.Repeat("x", 262145), "skill body too large (262145 bytes; max 262144)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			_, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: tt.id, Skill: tt.body})
			msg, code := errText(err)
			if msg != tt.wantErr || code != contract.CodeInvalidArgument {
				t.Errorf("error = %q (%s), want %q (%s)", msg, code, tt.wantErr, contract.CodeInvalidArgument)
			}
			if calls := f.engine.callsTo("state::set"); len(calls) != 0 {
				t.Errorf("a rejected register wrote state: %v", calls)
			}
			if ev := f.skillEvents.fired(); len(ev) != 0 {
				t.Errorf("a rejected register notified: %v", ev)
			}
		})
	}
}

func TestRegisterSkillAccepts(t *testing.T) {
	for _, id := range []string{"my-skill-1", "docs/fn-reference", "a/fn", "a/fn/c", "skills", strings.Repeat("a", 64), "a_b/c-d/e"} {
		t.Run(id, func(t *testing.T) {
			f := newFixture(t, nil)
			got, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: id, Skill: "# body"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(registerSkillOutput{ID: id, RegisteredAt: f.fixedTimestamp}, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("body of exactly 256 KiB", func(t *testing.T) {
		f := newFixture(t, nil)
		if _, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: "big", Skill: strings.Repeat("x", 262144)}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRegisterSkillWritesRowAndNotifies(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "resend/email", "# resend/email\n")
	want := `{"id":"resend/email","skill":"# resend/email\n","registered_at":"2026-05-04T19:22:41.123456789+00:00"}`
	if got := f.engine.value("skills", "resend/email"); got != want {
		t.Errorf("row = %s\nwant %s", got, want)
	}
	// Every register fires, even with an unchanged body.
	f.mustRegisterSkill(t, "resend/email", "# resend/email\n")
	wantEvents := []string{`{"op":"register","id":"resend/email"}`, `{"op":"register","id":"resend/email"}`}
	if diff := cmp.Diff(wantEvents, f.skillEvents.fired()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ev := f.promptEvents.fired(); len(ev) != 0 {
		t.Errorf("prompt events fired for a skill: %v", ev)
	}
}

func TestRegisterSkillStateFailure(t *testing.T) {
	f := newFixture(t, nil)
	f.engine.failWith("state::set", &iii.Error{Code: "SET_ERROR", Message: "Failed to set value: full"})
	_, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: "a", Skill: "b"})
	msg, code := errText(err)
	if want := "state::set: SET_ERROR: Failed to set value: full"; msg != want || code != contract.CodeUnavailable {
		t.Errorf("error = %q (%s), want %q (%s)", msg, code, want, contract.CodeUnavailable)
	}
	if ev := f.skillEvents.fired(); len(ev) != 0 {
		t.Errorf("a failed register notified: %v", ev)
	}
}

func TestUnregisterSkill(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "gone", "# g")
	for i, wantRemoved := range []bool{true, false} {
		got, err := f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: "gone"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(unregisterSkillOutput{ID: "gone", Removed: wantRemoved}, got); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", i+1, diff)
		}
	}
	want := []string{`{"op":"register","id":"gone"}`, `{"op":"unregister","id":"gone"}`}
	if diff := cmp.Diff(want, f.skillEvents.fired()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	_, err := f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: "Bad"})
	if msg, code := errText(err); !strings.Contains(msg, "lowercase") || code != contract.CodeInvalidArgument {
		t.Errorf("invalid id error = %q (%s)", msg, code)
	}
	if n := len(f.engine.callsTo("state::delete")); n != 2 {
		t.Errorf("state::delete calls = %d, want 2 (none for an invalid id)", n)
	}

	f.engine.failWith("state::delete", &iii.Error{Code: "DELETE_ERROR", Message: "nope"})
	_, err = f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: "gone"})
	if msg, code := errText(err); msg != "state::delete: DELETE_ERROR: nope" || code != contract.CodeUnavailable {
		t.Errorf("state failure = %q (%s)", msg, code)
	}
}

func TestListSkills(t *testing.T) {
	f := newFixture(t, nil)
	for _, id := range []string{"tree/leaf", "beta", "tree", "alpha"} {
		f.mustRegisterSkill(t, id, "body of "+id)
	}
	f.engine.put("skills", "broken", `{"id":"broken"}`) // skipped, as by the Rust worker
	got, err := f.reg.listSkills(f.ctx, listSkillsInput{})
	if err != nil {
		t.Fatal(err)
	}
	at := f.fixedTimestamp
	row := func(id string) skillEntry {
		body := "body of " + id
		return skillEntry{ID: id, Bytes: int64(len(body)), RegisteredAt: at, Origin: "state", Tokens: int64(len(body)+3) / 4, SHA256: hexSHA(body)}
	}
	want := listSkillsOutput{Skills: []skillEntry{row("alpha"), row("beta"), row("tree"), row("tree/leaf")}}
	if got := want.Skills[0]; got.Bytes != 13 || got.Tokens != 4 || got.SHA256 != "39bb9019035a4c2fb34f1b61711ce2103b210bbdfda6725443f0e9903c197173" {
		t.Fatalf("row = %+v", got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	f.engine.failWith("state::list", &iii.Error{Code: "LIST_ERROR", Message: "x"})
	if _, err := f.reg.listSkills(f.ctx, listSkillsInput{}); err == nil {
		t.Error("a state::list failure must fail skills::list")
	}
}

func TestListSkillsEmptyIsArray(t *testing.T) {
	f := newFixture(t, nil)
	got, err := f.reg.listSkills(f.ctx, listSkillsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Skills == nil {
		t.Error(`skills must encode as [], not null`)
	}
}

// The digests D41 added never push a listing over the response budget: a
// listing that fits without them comes without them (0.2 clients keep
// their listing), one that fits with them keeps them.
func TestListSkillsDropsDigestsRatherThanFail(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 40 {
		f.mustRegisterSkill(t, fmt.Sprintf("skill-%02d", i), "body")
	}
	all, err := f.reg.listSkills(f.ctx, listSkillsInput{})
	if err != nil || all.Skills[0].SHA256 == "" {
		t.Fatalf("a small listing: %+v, %v", all.Skills[0], err)
	}
	withDigests, _ := json.Marshal(all)
	if est := listBytes(all.Skills); est < len(withDigests) {
		t.Fatalf("listBytes %d underestimates the %d bytes of the response", est, len(withDigests))
	}
	setBudget(f.reg, func(b *Budgets) { b.MaxResponseBytes = len(withDigests) - 1 }) // one byte short of room for the digests
	out, err := f.reg.listSkills(f.ctx, listSkillsInput{})
	if err != nil || len(out.Skills) != 40 || out.Skills[0].SHA256 != "" || out.Skills[0].Tokens != 1 {
		t.Fatalf("a listing over the budget with digests: %+v, %v", out.Skills[0], err)
	}
	if b, _ := json.Marshal(out); len(b) > f.reg.Budgets().MaxResponseBytes {
		t.Errorf("the listing without digests is %d bytes, over %d", len(b), f.reg.Budgets().MaxResponseBytes)
	}
}
