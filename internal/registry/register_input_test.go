package registry

import (
	"encoding/json"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii"
)

var _ iii.FastDecoder = (*registerSkillInput)(nil)

// The payloads a caller sends, through the engine (which adds the
// caller's worker id), take the fast path, so it is not dead code, and
// decode to what encoding/json makes of them.
func TestRegisterInputUsualPayloadIsDecodedFast(t *testing.T) {
	for _, in := range []registerSkillInput{
		{ID: "billing", Skill: "# Billing\n\nInvoices and refunds.\n"},
		{ID: "team-001/skill-00001", Skill: "---\nname: x\n---\n# T\r\n\t\"quoted\" \\ back/slash\b\f café ☕"},
		{ID: "a", Skill: "no escapes at all"},
	} {
		raw, err := json.Marshal(map[string]string{"id": in.ID, "skill": in.Skill, "_caller_worker_id": "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"})
		if err != nil {
			t.Fatal(err)
		}
		in.CallerWorker = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a" // a revision's writer (D83)
		var got registerSkillInput
		if !got.DecodeFast(raw) {
			t.Errorf("DecodeFast refused %s", raw)
			continue
		}
		if got != in {
			t.Errorf("DecodeFast(%s) = %+v, want %+v", raw, got, in)
		}
	}
}

// FuzzRegisterInputDecodeFast: whatever DecodeFast accepts, encoding/json
// accepts too, with the same values; what it refuses it leaves untouched.
func FuzzRegisterInputDecodeFast(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","skill":"# A\n\nbody"}`, `{}`, ` {} `, `null`, `{"id":null}`, `{"ID":"a"}`, `{"Skill":"x","skill":"y"}`,
		`{"id":"a","id":"b"}`, `{"skill":"caf\u00e9"}`, "{\"skill\":\"caf\xc3\xa9\"}", "{\"skill\":\"\xff\"}", `{"id":5}`,
		`{"id":"a",}`, `{"id":"a"} x`, `{"a":{"id":"b"}}`, `{"id":"a","skill":"b","_caller_worker_id":"w"}`,
		`{"\u0069d":"a"}`, `[]`, `"id"`, "{\"skill\":\"a\tb\"}", `{"id" "a"}`, `{"skill":"\/\b\f\n\r\t\"\\"}`,
		`{"skill":"\x"}`, `{"skill":"\"}`, `{"skill":"a\\"}`, "{\"\xc5\xbfkill\":\"long s\"}", "{\"s\xe2\x84\xaaill\":\"kelvin\"}",
		`{"skill":"\ud83d\ude00"}`, `{"skill":"\ud800"}`, `{"id":"a","skill":"b"`,
		`{"id":"a","skill":"b","version":true}`, `{"id":"a","version":"yes"}`, `{"VERSION":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast registerSkillInput
		if !fast.DecodeFast(data) {
			if fast != (registerSkillInput{}) {
				t.Fatalf("DecodeFast refused %q but set %+v", data, fast)
			}
			return
		}
		var slow registerSkillInput
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("DecodeFast accepted %q, which encoding/json refuses: %v", data, err)
		}
		if fast != slow {
			t.Fatalf("%q: DecodeFast %+v, encoding/json %+v", data, fast, slow)
		}
	})
}

// BenchmarkRegisterInputDecode is the decoding of a 4 KiB registration,
// fast and through encoding/json (docs/decisions.md D77).
func BenchmarkRegisterInputDecode(b *testing.B) {
	body := ""
	for len(body) < 4096 {
		body += "- step: call the function with the recipient, subject and body; check the result.\n"
	}
	raw, err := json.Marshal(map[string]string{"id": "seq/s1", "skill": body[:4096], "_caller_worker_id": "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			var in registerSkillInput
			if !in.DecodeFast(raw) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var in registerSkillInput
			if err := json.Unmarshal(raw, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
