package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
)

// One skill::fetch naming a 256 KiB skill 300 times once dropped the
// worker's connection and took its memory to ~500 MB. It now reads the
// skill once and refuses the call before building anything (D26).
func TestFetchOverTheBudgetIsRefusedAfterOneRead(t *testing.T) {
	f := newFixture(t, nil)
	big := "# Big\n\n" + strings.Repeat("x", 256<<10-8)
	f.mustRegisterSkill(t, "big", big)
	uris := make([]string, 300)
	for i := range uris {
		uris[i] = "iii://big"
	}
	_, err := f.reg.fetch(f.ctx, fetchSkillInput{URIs: uris})
	msg, code := errText(err)
	// 300 × (13 + 262,136) + 299 × 7 bytes = 75.0 MiB.
	want := "skill::fetch response would exceed 16 MiB (at least 75.0 MiB for 300 uris, 1 distinct); fetch fewer uris"
	if code != contract.CodeInvalidArgument || msg != want {
		t.Errorf("error = %q (%s), want %s (%s)", msg, code, want, contract.CodeInvalidArgument)
	}
	if n := len(f.engine.callsTo("state::get")); n != 1 {
		t.Errorf("state::get called %d times for one distinct uri, want 1", n)
	}
}

// Within the budget the 0.2 shape is kept, duplicates included, and each
// distinct uri is still read once.
func TestFetchKeepsDuplicatesAndReadsEachURIOnce(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "a", "# A\n\nalpha\n\n")
	f.mustRegisterSkill(t, "b", "# B\n\nbeta")
	got, err := f.reg.fetch(f.ctx, fetchSkillInput{URIs: []string{"iii://a", "iii://b", "iii://a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "# iii://a\n\n# A\n\nalpha\n\n---\n\n# iii://b\n\n# B\n\nbeta\n\n---\n\n# iii://a\n\n# A\n\nalpha"
	if got != want {
		t.Errorf("fetch =\n%q\nwant\n%q", got, want)
	}
	if n := len(f.engine.callsTo("state::get")); n != 2 {
		t.Errorf("state::get called %d times for two distinct uris, want 2", n)
	}
}

// An index over the budget is cut after the last bullet that fits, with a
// last line that says how many entries were left out and how to reach
// them; it never exceeds the budget.
func TestIndexOverTheBudgetIsCutWithANote(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 50 {
		f.mustRegisterSkill(t, fmt.Sprintf("s%02d", i), fmt.Sprintf("# Skill %d\n\n%s", i, strings.Repeat("d", 100)))
	}
	full := f.reg.index(f.ctx)
	setBudget(f.reg, func(b *Budgets) { b.MaxResponseBytes = len(full) / 2 })
	cut := f.reg.index(f.ctx)
	if n := len(encodedRead(t, f, IndexURI)); n > f.reg.Budgets().MaxResponseBytes {
		t.Errorf("the resources-read response of the cut index is %d bytes, over the %d-byte budget", n, f.reg.Budgets().MaxResponseBytes)
	}
	listed := strings.Count(cut, "\n- [`")
	if listed == 0 || listed >= 50 {
		t.Fatalf("cut index lists %d of 50 skills", listed)
	}
	if !strings.HasPrefix(full, cut[:strings.LastIndex(cut, "\n- [`")]) {
		t.Errorf("the cut index is not a prefix of the full one")
	}
	note := fmt.Sprintf("\n_%d more skills are not listed: this index is cut at the worker's response budget "+
		"(max_response_bytes, %d bytes). List every id with the skills::list function, then read iii://{id}._\n", 50-listed, f.reg.Budgets().MaxResponseBytes)
	if !strings.HasSuffix(cut, note) {
		t.Errorf("cut index ends with\n%q\nwant\n%q", cut[max(0, len(cut)-300):], note)
	}
}

// A section function whose output is over the budget is an unavailable
// error naming the function and the budget, not a frame the engine drops.
func TestSectionOverTheBudgetIsRefused(t *testing.T) {
	f := newFixture(t, nil)
	setBudget(f.reg, func(b *Budgets) { b.MaxResponseBytes = 1 << 10 })
	f.engine.returns("docs::huge", `"`+strings.Repeat("y", 2<<10)+`"`)
	_, err := f.reg.resourcesRead(f.ctx, readIn("iii://fn/docs/huge"))
	msg, code := errText(err)
	// 2 KiB of text plus its resources-read envelope.
	want := "section function docs::huge returned 2.1 KiB, over the worker's response budget of 1 KiB (max_response_bytes); make the section smaller or split it"
	if code != contract.CodeUnavailable || msg != want {
		t.Errorf("error = %q (%s)\n want %q (%s)", msg, code, want, contract.CodeUnavailable)
	}
}

// encodedRead is the resources-read response for uri as the worker puts it
// on the wire: the result writes itself (docs/decisions.md D52), to the
// bytes encoding/json writes (FuzzReadOutput).
func encodedRead(t *testing.T, f *fixture, uri string) []byte {
	t.Helper()
	out, err := f.reg.resourcesRead(f.ctx, readIn(uri))
	if err != nil {
		t.Fatal(err)
	}
	return out.AppendJSON(nil)
}

// FuzzJSONTextLen: the budget never undercounts what the encoder writes.
func FuzzJSONTextLen(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" back\\slash", "\n\r\t\b\f\x00\x1f", "\u2028\u2029", "caf\xe9", "<html>&", "é—😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, wire := jsonTextLen(s), buf.Len()-3; got < wire {
			t.Fatalf("jsonTextLen(%q) = %d, but the encoder writes %d bytes", s, got, wire)
		}
	})
}

// A section whose result is big but whose rendered text is small (a
// {content} object carrying other fields) is served: the budget applies to
// the response, not to what the function sent.
func TestSectionWithSmallTextAndABigResultIsServed(t *testing.T) {
	f := newFixture(t, nil)
	setBudget(f.reg, func(b *Budgets) { b.MaxResponseBytes = 1 << 10 })
	f.engine.returns("docs::chatty", `{"content":"# Short","debug":"`+strings.Repeat("z", 4<<10)+`"}`)
	out, err := f.reg.resourcesRead(f.ctx, readIn("iii://fn/docs/chatty"))
	if err != nil || len(out.Contents) != 1 || out.Contents[0].Text != "# Short" {
		t.Errorf("read = %+v, %v; want the short content", out, err)
	}
}
