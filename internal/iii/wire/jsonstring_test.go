package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encodingJSON is what a handler's result went through before results
// could write themselves: encoding/json without HTML escaping.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// stringSeeds are the strings JSON escaping gets wrong most often.
var stringSeeds = []string{
	"", "plain markdown\n\n- a list\n", "\x00\x01\x07\b\t\n\v\f\r\x1b\x1f\x7f", `<b>a & b</b>`, `"quoted" \back\slash /`,
	"\u2028 and \u2029", "\xff\xfe", "cut \xe2\x82", "\xed\xa0\x80 surrogate", "é 日本 🙂 \ufffd", "\xf4\x90\x80\x80 above U+10FFFF",
}

// TestAppendJSONStringEveryByte checks every byte value alone, and at
// every position of a run of plain text long enough to be skipped a word
// at a time, against encoding/json.
func TestAppendJSONStringEveryByte(t *testing.T) {
	const run = "abcdefghijklmnopqrstuvw"
	for c := range 256 {
		cases := []string{string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "é"}
		for at := range len(run) + 1 {
			cases = append(cases, run[:at]+string([]byte{byte(c)})+run[at:])
		}
		for _, s := range cases {
			if got, want := string(AppendJSONString(nil, s)), encodingJSON(t, s); got != want {
				t.Errorf("AppendJSONString(%q) = %s, encoding/json writes %s", s, got, want)
			}
		}
	}
}

// FuzzAppendJSONString holds AppendJSONString to encoding/json's bytes for
// any string, and checks it appends rather than overwrites.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := encodingJSON(t, s)
		if got := string(AppendJSONString(nil, s)); got != want {
			t.Fatalf("AppendJSONString(%q) = %s, encoding/json writes %s", s, got, want)
		}
		if got := string(AppendJSONString([]byte("x:"), s)); got != "x:"+want {
			t.Fatalf("AppendJSONString after a prefix = %s, want x:%s", got, want)
		}
	})
}

// TestFrameStringsKeepTheirEscapes pins what the frame's own fields have
// always carried: \b and \f as \u0008 and \u000c. Only results follow
// encoding/json's short forms.
func TestFrameStringsKeepTheirEscapes(t *testing.T) {
	b, err := Encode(InvocationResult{InvocationID: "i", FunctionID: "f", Error: &ErrorBody{Code: "c", Message: "\b\f\n"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"invocationresult","invocation_id":"i","function_id":"f","error":{"code":"c","message":"\u0008\u000c\n"}}`
	if string(b) != want {
		t.Errorf("Encode = %s, want %s", b, want)
	}
}

// TestEncodeResultMatchesEncode checks a result written in place against
// the same result passed as raw JSON, with and without the optional
// fields around it.
func TestEncodeResultMatchesEncode(t *testing.T) {
	result := `{"contents":[{"text":"a\nb"}]}`
	appendResult := func(dst []byte) []byte { return append(dst, result...) }
	for _, m := range []InvocationResult{
		{InvocationID: "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a", FunctionID: "skills::resources-read"},
		{InvocationID: "i", FunctionID: "f\"\u2028", Traceparent: "00-abc-01", Baggage: "k=v"},
		{InvocationID: "i", FunctionID: "f", Baggage: "only"},
	} {
		frame, n := EncodeResult(m, 0, appendResult)
		m.Result = json.RawMessage(result)
		want, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(frame) != string(want) {
			t.Errorf("EncodeResult = %s\nEncode       = %s", frame, want)
		}
		if n != len(result) {
			t.Errorf("resultLen = %d, want %d", n, len(result))
		}
	}
}

// BenchmarkAppendJSONString escapes a 4 KiB markdown body, the string a
// resources-read reply is mostly made of; ns/op against a 4 KiB copy
// (about 0.1 µs) is what escaping adds.
func BenchmarkAppendJSONString(b *testing.B) {
	var body strings.Builder
	body.WriteString("# Email provider\n\nSend transactional email through the provider's API.\n\n")
	for body.Len() < 4096 {
		body.WriteString("- step: call `send` with the recipient, subject and body; check the \"id\" it returns.\n")
	}
	s := body.String()[:4096]
	buf := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendJSONString(buf[:0], s)
	}
}
