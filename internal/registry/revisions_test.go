package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// newHistoryFixture is newFixture's registry keeping kept bodies per
// skill (docs/decisions.md D83), with no catalog mirror: every write
// reads the history.
func newHistoryFixture(t *testing.T, kept int) *fixture {
	t.Helper()
	f := newFixture(t, nil)
	f.reg = New(Config{Caller: f.engine, SkillsChanged: f.skillEvents, PromptsChanged: f.promptEvents,
		StateTimeout: 2 * time.Second, Now: func() time.Time { return fixedNow }, RevisionsKept: kept})
	return f
}

func (f *fixture) registerAs(t *testing.T, id, body, worker string) {
	t.Helper()
	if _, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: id, Skill: body, CallerWorker: worker}); err != nil {
		t.Fatalf("register %s: %v", id, err)
	}
}

// revisionsOf is skills::history's answer for id as (revision, kept, worker) triples.
func (f *fixture) revisionsOf(t *testing.T, id string) []string {
	t.Helper()
	out, err := f.reg.skillHistory(f.ctx, historyInput{ID: id})
	if err != nil {
		t.Fatalf("history %s: %v", id, err)
	}
	var got []string
	for _, r := range out.Revisions {
		b, _ := json.Marshal(r)
		got = append(got, string(b))
	}
	return got
}

// A body unchanged by a re-register makes no revision; each changed body
// makes the next; only the newest kept bodies stay restorable.
func TestRevisionsNumberChangedBodies(t *testing.T) {
	f := newHistoryFixture(t, 2)
	f.registerAs(t, "acme", "# One", "w1")
	f.registerAs(t, "acme", "# One", "w2") // a boot's re-register
	f.registerAs(t, "acme", "# Two", "w2")
	f.registerAs(t, "acme", "# Three", "w3")
	at := f.fixedTimestamp
	want := []string{
		`{"revision":3,"at":"` + at + `","sha256":"` + sha256Of("# Three") + `","bytes":7,"worker":"w3","kept":true}`,
		`{"revision":2,"at":"` + at + `","sha256":"` + sha256Of("# Two") + `","bytes":5,"worker":"w2","kept":true}`,
		`{"revision":1,"at":"` + at + `","sha256":"` + sha256Of("# One") + `","bytes":5,"worker":"w1","kept":false}`,
	}
	if diff := cmp.Diff(want, f.revisionsOf(t, "acme")); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// A rollback restores a kept body as a new revision, fires one
// register event, and is listed with its revision when asked.
func TestRollbackIsANewRevision(t *testing.T) {
	f := newHistoryFixture(t, 3)
	for _, body := range []string{"# One", "# Two", "# Three"} {
		f.registerAs(t, "acme", body, "w")
	}
	before := len(f.skillEvents.fired())
	out, err := f.reg.rollbackSkill(f.ctx, rollbackInput{ID: "acme", Revision: 1, CallerWorker: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (rollbackOutput{ID: "acme", Revision: 4, RestoredFrom: 1, RegisteredAt: f.fixedTimestamp}); out != want {
		t.Errorf("rollback = %+v, want %+v", out, want)
	}
	if got := f.skillEvents.fired()[before:]; !cmp.Equal(got, []string{`{"op":"register","id":"acme"}`}) {
		t.Errorf("on-change events of the rollback = %v, want one register", got)
	}
	if body, err := f.reg.skillBody(f.ctx, "acme"); err != nil || body != "# One" {
		t.Errorf("body after rollback = %q, %v; want %q", body, err, "# One")
	}
	if got := f.revisionsOf(t, "acme")[0]; !strings.Contains(got, `"revision":4`) || !strings.Contains(got, `"worker":"operator"`) {
		t.Errorf("newest revision = %s, want 4 by operator", got)
	}
	list, err := f.reg.listSkills(f.ctx, listSkillsInput{Revision: true})
	if err != nil || len(list.Skills) != 1 || list.Skills[0].Revision != 4 {
		t.Errorf("skills::list {revision:true} = %+v, %v; want acme at revision 4", list, err)
	}
}

// Without "revision": true, skills::list answers 0.2's bytes: no member
// is added to an entry.
func TestListNamesRevisionsOnlyWhenAsked(t *testing.T) {
	f := newHistoryFixture(t, 3)
	f.registerAs(t, "acme", "# One", "w")
	for _, asked := range []bool{false, true} {
		b, err := f.reg.encodedList(f.ctx, listSkillsInput{Revision: asked})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"revision"`); got != asked {
			t.Errorf("skills::list {revision:%v} = %s: names a revision %v", asked, b, got)
		}
	}
}

// History and rollback of what is not there answer not_found naming it;
// a bad id or revision is invalid_argument; the state is unchanged.
func TestHistoryBadInput(t *testing.T) {
	f := newHistoryFixture(t, 1)
	f.registerAs(t, "acme", "# One", "w")
	f.registerAs(t, "acme", "# Two", "w")
	for _, tc := range []struct {
		name     string
		call     func() error
		code     string
		contains string
	}{
		{"unknown id", func() error { _, err := f.reg.skillHistory(f.ctx, historyInput{ID: "nope"}); return err }, contract.CodeNotFound, "Skill not found: nope"},
		{"bad id", func() error { _, err := f.reg.skillHistory(f.ctx, historyInput{ID: "Bad Id"}); return err }, contract.CodeInvalidArgument, "Bad Id"},
		{"rollback unknown id", func() error { _, err := f.reg.rollbackSkill(f.ctx, rollbackInput{ID: "nope", Revision: 1}); return err }, contract.CodeNotFound, "nope"},
		{"unknown revision", func() error { _, err := f.reg.rollbackSkill(f.ctx, rollbackInput{ID: "acme", Revision: 9}); return err }, contract.CodeNotFound, "has no revision 9 (its revisions are 1 to 2)"},
		{"body not kept", func() error { _, err := f.reg.rollbackSkill(f.ctx, rollbackInput{ID: "acme", Revision: 1}); return err }, contract.CodeNotFound, "revision 1 of skill acme is no longer kept"},
		{"revision 0", func() error { _, err := f.reg.rollbackSkill(f.ctx, rollbackInput{ID: "acme"}); return err }, contract.CodeInvalidArgument, "got 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, code := errText(tc.call())
			if code != tc.code || !strings.Contains(msg, tc.contains) {
				t.Errorf("error = %q (%s), want %s containing %q", msg, code, tc.code, tc.contains)
			}
		})
	}
	if body, err := f.reg.skillBody(f.ctx, "acme"); err != nil || body != "# Two" {
		t.Errorf("body after refused rollbacks = %q, %v; want %q", body, err, "# Two")
	}
	if n := len(f.revisionsOf(t, "acme")); n != 2 {
		t.Errorf("revisions after refused rollbacks = %d, want 2", n)
	}
}

// With a catalog mirror, a re-register of an unchanged body is one
// state::set, as before history (docs/decisions.md D51, D83); a new or
// changed body reads and writes the history first.
func TestUnchangedReRegisterIsOneStateSet(t *testing.T) {
	srv := iiitest.NewServer(t)
	client := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	calls := &callLog{Client: client}
	r := newReplicaOver(t, client, calls, 1<<20)
	reg := New(Config{Caller: calls, SkillsMirror: r.skills, PromptsMirror: r.prompts, RevisionsKept: 3})
	calls.take()
	ctx := context.Background()
	for _, step := range []struct {
		body string
		want []string
	}{
		{"# One", []string{"state::get acme", "state::set acme", "state::set acme"}},
		{"# One", []string{"state::set acme"}},
		{"# Two", []string{"state::get acme", "state::set acme", "state::set acme"}},
		{"# Two", []string{"state::set acme"}},
	} {
		if _, err := reg.registerSkill(ctx, registerSkillInput{ID: "acme", Skill: step.body}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(step.want, calls.take()); diff != "" {
			t.Errorf("engine calls registering %q (-want +got):\n%s", step.body, diff)
		}
	}
	raw, ok := srv.State("skills", "acme")
	if !ok {
		t.Fatal("the engine has no acme")
	}
	if row, err := catalog.DecodeSkillRow(raw); err != nil || row.Revision != 2 {
		t.Errorf("stored row = %+v, %v; want revision 2", row, err)
	}
}

// sha256Of is the hex digest a revision records for body.
func sha256Of(body string) string { return catalog.MetaOf("x", body).SHA256 }

// Concurrent changes of one id on one replica each get a number of their
// own: no two records share one (through a real engine, whose calls
// interleave).
func TestConcurrentChangesTakeDistinctRevisions(t *testing.T) {
	srv := iiitest.NewServer(t)
	client := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	r := newReplicaOver(t, client, client, 1<<20)
	reg := New(Config{Caller: client, SkillsMirror: r.skills, PromptsMirror: r.prompts, RevisionsKept: 20})
	ctx := context.Background()
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := reg.registerSkill(ctx, registerSkillInput{ID: "acme", Skill: fmt.Sprintf("# Body %d", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	out, err := reg.skillHistory(ctx, historyInput{ID: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range out.Revisions {
		got = append(got, r.Revision)
	}
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(n - i)
	}
	if !cmp.Equal(got, want) {
		t.Errorf("revisions after %d concurrent changes = %v, want %v", n, got, want)
	}
}

// A prompt's definition is numbered as a skill's body: a re-register of
// the same definition makes no revision, a changed description does; an
// unknown name is not_found naming it.
func TestPromptHistoryNumbersChangedDefinitions(t *testing.T) {
	f := newHistoryFixture(t, 2)
	for _, in := range []registerPromptInput{
		{Name: "greet", Description: "Say hello", FunctionID: "w::greet", CallerWorker: "w1"},
		{Name: "greet", Description: "Say hello", FunctionID: "w::greet", CallerWorker: "w1"},
		{Name: "greet", Description: "Say hello warmly", FunctionID: "w::greet", CallerWorker: "w2"},
	} {
		if _, err := f.reg.registerPrompt(f.ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	out, err := f.reg.promptHistory(f.ctx, promptHistoryInput{Name: "greet"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Revisions {
		got = append(got, fmt.Sprintf("%d %s %v", r.Revision, r.Worker, r.Kept))
	}
	if want := []string{"2 w2 true", "1 w1 true"}; !cmp.Equal(got, want) {
		t.Errorf("prompts::history = %v, want %v", got, want)
	}
	msg, code := errText(func() error { _, err := f.reg.promptHistory(f.ctx, promptHistoryInput{Name: "ghost"}); return err }())
	if code != contract.CodeNotFound || !strings.Contains(msg, "Prompt not found: ghost") {
		t.Errorf("history of an unknown prompt = %q (%s), want not_found naming it", msg, code)
	}
}
