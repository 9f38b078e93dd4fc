package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

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

// FuzzDecodeMatchesReference checks the single-pass decoder against the
// first one, built on encoding/json: whatever the new decoder accepts, the
// reference accepts with the same value. Inputs with uppercase or
// non-ASCII bytes are left out, because encoding/json matches keys
// case-insensitively (Unicode folding included) where the engine's serde
// does not; the round-trip fuzz above covers them.
func FuzzDecodeMatchesReference(f *testing.F) {
	for _, m := range everyFrame {
		b, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"ping","id":5}`))
	f.Add([]byte(`{"type":"invokefunction","function_id":"f","data":{"a":[1,2.5e3,"x\u0000"]},"action":{"type":"void"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, c := range in {
			if c >= 'A' && c <= 'Z' || c >= 0x80 {
				return
			}
		}
		got, err := Decode(in)
		if err != nil {
			return
		}
		// The reference decodes every known key whatever the type; the new
		// decoder reads only the type's own fields, as serde does. Compare
		// only when the reference could decode it at all.
		want, refErr := decodeReference(in)
		if refErr != nil {
			if !json.Valid(in) {
				t.Fatalf("Decode accepted invalid JSON %q", in)
			}
			return
		}
		if diff := cmp.Diff(want, got, compactRaw); diff != "" {
			t.Errorf("Decode(%q) differs from the reference (-reference +new):\n%s", in, diff)
		}
	})
}

// FuzzValid checks Valid against encoding/json's json.Valid plus a UTF-8
// check (json.Valid accepts invalid UTF-8 inside strings; the engine does
// not).
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[1,-0.5e+3,true,false,null,"a\"b\\u00e9"]`, `01`, `1.`, `-`, `"\x01"`, `{"a":}`, ` [ ] `, `"\ud800"`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := Valid(in), json.Valid(in) && utf8.Valid(in); got != want {
			t.Errorf("Valid(%q) = %v, want %v", in, got, want)
		}
	})
}

// FuzzValidElement checks that ValidElement is one valid value that is
// still Valid inside an array, which lets the engine check an array it
// writes from its elements without joining them (docs/decisions.md D52). The seeds
// include values at the nesting limit, valid alone but not one level
// deeper.
func FuzzValidElement(f *testing.F) {
	deep := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	for _, s := range [][]byte{[]byte(`1`), []byte(` "x" `), []byte(`{"a":[1]}`), []byte(`1,2`), []byte(`]`), []byte(``), []byte("\"\xff\""), deep(maxDepth - 1), deep(maxDepth), deep(maxDepth + 1)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		inArray := append(append([]byte{'['}, in...), ']')
		if got, want := ValidElement(in), Valid(in) && Valid(inArray); got != want {
			t.Errorf("ValidElement(%.80q) = %v, want %v (Valid alone and in an array)", in, got, want)
		}
	})
}
