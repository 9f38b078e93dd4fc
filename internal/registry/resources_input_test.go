package registry

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii"
)

var _ iii.FastDecoder = (*readResourceInput)(nil)

// The payload the engine delivers, the uri plus the caller's worker id,
// takes the fast path, so it is not dead code.
func TestReadInputUsualPayloadIsDecodedFast(t *testing.T) {
	for payload, want := range map[string]string{
		`{"uri":"iii://resend/email","_caller_worker_id":"3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"}`: "iii://resend/email",
		` { "_caller_worker_id" : "w" , "uri" : "iii://skills" } `:                                "iii://skills",
	} {
		var in readResourceInput
		if !in.DecodeFast([]byte(payload)) {
			t.Errorf("DecodeFast refused %s", payload)
			continue
		}
		if in.URI == nil || *in.URI != want {
			t.Errorf("DecodeFast(%s) uri = %v, want %q", payload, in.URI, want)
		}
	}
}

// FuzzReadInputDecodeFast: whatever DecodeFast accepts, encoding/json
// accepts too, with the same value; what it refuses it leaves untouched.
func FuzzReadInputDecodeFast(f *testing.F) {
	for _, s := range []string{
		`{"uri":"iii://a"}`, `{}`, ` {} `, `null`, `{"uri":null}`, `{"URI":"iii://a"}`, `{"Uri":"x","uri":"y"}`,
		`{"uri":"a","uri":"b"}`, `{"uri":"caf\u00e9"}`, "{\"uri\":\"caf\xc3\xa9\"}", `{"uri":5}`, `{"uri":"a",}`,
		`{"uri":"a"} x`, `{"a":{"uri":"b"}}`, `{"uri":"a","_caller_worker_id":"w"}`, `{"u\u0072i":"a"}`, `[]`, `"uri"`,
		"{\"uri\":\"a\tb\"}", `{"uri" "a"}`, `{,"uri":"a"}`, `{"uri":"a"`, `{"ur":"a","uris":"b"}`,
		// after (D78) is always encoding/json's, checked by catalog.After.
		`{"uri":"a","after":"x"}`, `{"uri":"a","AFTER":5}`, `{"uri":"a","aft\u0065r":"x"}`, `{"uri":"a","after":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast readResourceInput
		if !fast.DecodeFast(data) {
			if fast.URI != nil {
				t.Fatalf("DecodeFast refused %q but set uri %q", data, *fast.URI)
			}
			return
		}
		var slow readResourceInput
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("DecodeFast accepted %q, which encoding/json refuses: %v", data, err)
		}
		switch {
		case (fast.URI == nil) != (slow.URI == nil):
			t.Fatalf("%q: DecodeFast uri %v, encoding/json %v", data, fast.URI, slow.URI)
		case fast.URI != nil && *fast.URI != *slow.URI:
			t.Fatalf("%q: DecodeFast uri %q, encoding/json %q", data, *fast.URI, *slow.URI)
		case !slices.Equal(fast.After, slow.After):
			t.Fatalf("%q: DecodeFast after %q, encoding/json %q", data, fast.After, slow.After)
		}
	})
}
