package registry

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

var _ iii.JSONAppender = readResourceOutput{}

// reflected is the result's bytes as 0.2 put them on the wire: the struct
// through encoding/json without HTML escaping (package iii's encoder
// before results could write themselves).
func reflected(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestReadOutputMatchesEncodingJSON(t *testing.T) {
	body := "---\nname: x\n---\n# Title <b>&amp;</b>\n\n\t\"quoted\" \\ \b\f\x00\x1f\x7f \u2028\u2029 \xff\xfe é 🙂"
	for _, out := range []readResourceOutput{
		{},
		{Contents: []resourceContent{}},
		{Contents: []resourceContent{{}}},
		{Contents: []resourceContent{{URI: "iii://resend/email", MimeType: contract.MIMEMarkdown, Text: body}}},
		{Contents: []resourceContent{{URI: "iii://a\u2028", MimeType: "text/markdown", Text: "a"}, {URI: "iii://b", MimeType: "\xff", Text: body}}},
	} {
		if got, want := string(out.AppendJSON(nil)), reflected(t, out); got != want {
			t.Errorf("AppendJSON(%+v)\n = %s\nencoding/json writes\n   %s", out, got, want)
		}
	}
}

// FuzzReadOutput holds the resources-read result written in place to the
// bytes encoding/json writes for the same struct, for any uri, MIME type
// and body.
func FuzzReadOutput(f *testing.F) {
	for _, s := range []string{"", "# Skill\n\n- step\n", "\x00\b\f\x1f\x7f", "<>&", "\u2028\u2029", "\xff", "cut \xe2\x82", "\"\\"} {
		f.Add("iii://resend/email", contract.MIMEMarkdown, s)
		f.Add(s, s, s)
	}
	f.Fuzz(func(t *testing.T, uri, mime, text string) {
		out := readResourceOutput{Contents: []resourceContent{{URI: uri, MimeType: mime, Text: text}}}
		want := reflected(t, out)
		if got := string(out.AppendJSON(nil)); got != want {
			t.Fatalf("AppendJSON = %s\nencoding/json writes %s", got, want)
		}
		if got := string(out.AppendJSON([]byte(`{"result":`))); got != `{"result":`+want {
			t.Fatalf("AppendJSON after a prefix = %s", got)
		}
	})
}

// TestReadReplyIsTheDirectEncoding checks that a skill read's result is
// the value that writes itself, so the reflection path is not taken by
// accident (a wrapped or pointer result would lose AppendJSON). The index
// read answers bytes kept encoded per listing version instead (D53).
func TestReadReplyIsTheDirectEncoding(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "resend/email", "# Email <b>\n\n\"Send\" mail.\n")
	for _, fn := range f.reg.Functions() {
		if fn.ID != contract.FnSkillsResourcesRead {
			continue
		}
		out, err := fn.Handler(t.Context(), iii.Request{FunctionID: fn.ID, Data: json.RawMessage(`{"uri":"iii://resend/email"}`)})
		if err != nil {
			t.Fatal(err)
		}
		a, ok := out.(iii.JSONAppender)
		if !ok {
			t.Fatalf("resources-read returned %T, which does not write itself", out)
		}
		if got, want := string(a.AppendJSON(nil)), reflected(t, out); got != want {
			t.Errorf("the skill read writes\n %s\nencoding/json writes\n %s", got, want)
		}
		return
	}
	t.Fatal("no resources-read function")
}
