package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// compactRaw compares raw JSON fields by content, not whitespace: Encode
// compacts them.
var compactRaw = cmp.Transformer("compact", func(r json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return "invalid: " + string(r)
	}
	return b.String()
})

// FuzzDecode checks that Decode never panics and that any frame it accepts
// re-encodes to a frame that decodes to the same value.
func FuzzDecode(f *testing.F) {
	for _, m := range everyFrame {
		b, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{``, `null`, `[]`, `{"type":`, `{"type":"invokefunction","function_id":"f","data":null}`,
		`{"type":"invocationresult","invocation_id":"{3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a}","function_id":"f","result":  { "a" : [ 1 ] } }`,
		`{"TYPE":"ping"}`, `{"type":"ping","type":"pong"}`, "{\"type\":\"registerfunction\",\"id\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := Decode(in)
		if err != nil {
			return
		}
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode of decoded %#v: %v", m, err)
		}
		again, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode of re-encoded %s: %v", b, err)
		}
		if diff := cmp.Diff(m, again, compactRaw); diff != "" {
			t.Errorf("re-decoded frame differs (-first +second):\n%s", diff)
		}
	})
}
