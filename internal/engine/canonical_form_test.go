package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// canonicalSeeds are inputs at the edges of the fast path: each must come
// out of canonical exactly as the round trip makes it.
var canonicalSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.50`, `1E5`, `-2.5e-3`, `""`,
	`{"a":1,"b":[1,2,{"c":null}]}`,
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{ "a":1}`, `[1, 2]`, " {}", "{}\n",
	`"\u0041"`, `"\/"`, `"\n\t\r\b\f"`, `"\u000a"`, `"\u0008"`, `"\u001f"`, `"\u001F"`, `"\u0000"`,
	`"\u2028"`, "\"\u2028\"", `"\u2029"`, `"\u00e9"`, "\"é\"", `"\ud83d\ude00"`, "\"😀\"", `"\ud800"`,
	"\"\xff\"", "\"a\xc3\"", "\"\x7f<>&\"", `"\\\""`,
	`{"a\"":1,"a":2}`, `{"\u0061":1}`, `{"é":1,"z":2}`, `{"z":1,"é":2}`, `{"":1,"a":{}}`,
	`[[[[[[]]]]]]`, `{"a":[{"b":[]},{}]}`, strings.Repeat("[", 1500) + strings.Repeat("]", 1500),
	`01`, `1.`, `-`, `.5`, `1e`, `tru`, `nul`, `{"a"}`, `{"a":}`, `[1,]`, `{,}`, `"`, `{"a":1,}`,
}

// TestCanonicalFastPathIsTheRoundTrip checks that passing already canonical
// JSON through unchanged, and re-encoding other JSON without maps
// (reencode), give exactly the bytes the decode-and-encode round trip
// gives, for the seeds and for random values written in random
// forms (unsorted and duplicate keys, whitespace, escapes of every kind,
// non-ASCII text, numbers as written), and that the round trip's own
// output takes the fast path: a result forwarded twice is not re-encoded.
func TestCanonicalFastPathIsTheRoundTrip(t *testing.T) {
	for _, in := range canonicalSeeds {
		checkCanonical(t, []byte(in))
	}
	rng := rand.New(rand.NewPCG(22, 53))
	fast, middle := 0, 0
	for range 20000 {
		var b bytes.Buffer
		writeRandomJSON(rng, &b, 0)
		if checkCanonical(t, b.Bytes()) {
			fast++
		} else if _, ok := reencode(b.Bytes()); ok {
			middle++
		}
	}
	if fast < 1000 || middle < 1000 {
		t.Fatalf("of 20,000 random inputs %d passed through and %d were re-encoded without maps; "+
			"the generator or the checks are broken", fast, middle)
	}
}

// checkCanonical fails t when canonical(in) differs from the round trip,
// or when the round trip's output would not pass through as it is (keys
// with escapes aside, which the check leaves to the slow path). It
// reports whether in itself took the fast path.
func checkCanonical(t *testing.T, in []byte) bool {
	t.Helper()
	want := roundTrip(bytes.Clone(in))
	if got := canonical(bytes.Clone(in)); !bytes.Equal(got, want) {
		t.Fatalf("canonical(%q) = %q, the round trip gives %q", in, got, want)
	}
	if _, err := decodeValue(want); err == nil && !isCanonical(want) && !keyHasEscape(want) && !tooDeep(want) {
		t.Fatalf("the round trip's output %q is canonical but the check refuses it", want)
	}
	return isCanonical(in)
}

// keyHasEscape reports whether some object key in raw holds a backslash.
func keyHasEscape(raw []byte) bool {
	v, err := decodeValue(raw)
	if err != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if strings.ContainsAny(k, "\"\\") || strings.IndexFunc(k, func(r rune) bool { return r < 0x20 || r == '\u2028' || r == '\u2029' }) >= 0 || walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

func tooDeep(raw []byte) bool { return bytes.Count(raw, []byte("[")) > maxCanonicalDepth }

// FuzzCanonical holds the fast path to the round trip on any input.
func FuzzCanonical(f *testing.F) {
	for _, in := range canonicalSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := roundTrip(bytes.Clone(in))
		if got := canonical(bytes.Clone(in)); !bytes.Equal(got, want) {
			t.Fatalf("canonical(%q) = %q, the round trip gives %q", in, got, want)
		}
	})
}

// TestCanonicalResultIsItsOwn checks that a value passed through does not
// share the frame it was cut from: a read loop that reused its buffer
// would otherwise change values already forwarded or stored.
func TestCanonicalResultIsItsOwn(t *testing.T) {
	frame := []byte(`{"a":1}` + `,"rest of the frame"`)
	got := canonical(frame[:7])
	copy(frame, `{"b":2}`)
	if string(got) != `{"a":1}` {
		t.Fatalf("canonical's result changed with the frame: %s", got)
	}
}

// writeRandomJSON writes a random value in a random written form.
func writeRandomJSON(rng *rand.Rand, b *bytes.Buffer, depth int) {
	ws := func() {
		if rng.IntN(8) == 0 {
			b.WriteString([]string{" ", "\n", "\t", "\r\n  "}[rng.IntN(4)])
		}
	}
	ws()
	kind := rng.IntN(8)
	if depth > 4 {
		kind = rng.IntN(4)
	}
	switch kind {
	case 0:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	case 1:
		b.WriteString([]string{"0", "-0", "7", "-12", "1.50", "3.25e8", "1E-2", "123456789012345678901234567890", "2.0"}[rng.IntN(9)])
	case 2, 3:
		writeRandomString(rng, b)
	case 4, 5:
		b.WriteByte('[')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeRandomJSON(rng, b, depth+1)
		}
		ws()
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		keys := []string{"a", "b", "id", "skills", "é", "z", "", "a\\u0062", "A", "aa"}
		n := rng.IntN(5)
		if rng.IntN(10) == 0 {
			n = 13 + rng.IntN(8) // past insertion sort's reach
		}
		sorted := rng.IntN(2) == 0
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			k := keys[rng.IntN(len(keys))]
			if sorted {
				k = fmt.Sprintf("k%02d", i*3+rng.IntN(4)) // increasing, or now and then equal
			}
			b.WriteString(`"` + k + `"`)
			ws()
			b.WriteByte(':')
			writeRandomJSON(rng, b, depth+1)
		}
		ws()
		b.WriteByte('}')
	}
	ws()
}

// writeRandomString writes a string mixing plain text, every escape JSON
// allows (in both hex cases), raw non-ASCII and the characters
// encoding/json treats specially.
func writeRandomString(rng *rand.Rand, b *bytes.Buffer) {
	parts := []string{
		"abc", "skill-0007", " ", "<&>", "\x7f", "é", "😀", "\u2028", "\u2029", "\xff", "/",
		`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
		`\u0000`, `\u001f`, `\u001F`, `\u000a`, `\u0008`, `\u0041`, `\u00e9`, `\u00E9`, `\u2028`, `\u2029`,
		`\ud83d\ude00`, `\ud800`,
	}
	b.WriteByte('"')
	for range rng.IntN(6) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	b.WriteByte('"')
}
