package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAll splits a whole array with an ElementReader over r.
func readAll(r io.Reader) ([]string, error) {
	er := NewElementReader(r)
	var out []string
	for {
		el, err := er.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(el))
	}
}

// The elements streamed are the elements encoding/json finds in the
// whole array, however the bytes arrive (one at a time, or in big reads).
func FuzzElementReaderMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{`[]`, ` [ ] `, `[1]`, `[1, "a,]", {"b":[1,2]}, null ]`, `["\"]", "\\"]`,
		`[{"id":"x","skill":"# T\n\nbody"}]`, `[1,]`, `[1`, `{"a":1}`, `[[[]]]`, `["é", "\u00e9"]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, r := range map[string]io.Reader{"whole": bytes.NewReader(b), "bytewise": iotest.OneByteReader(bytes.NewReader(b))} {
			got, err := readAll(r)
			trimmed := bytes.TrimSpace(b)
			if !Valid(b) || len(trimmed) == 0 || trimmed[0] != '[' {
				if err == nil && !Valid(b) && len(trimmed) > 0 && trimmed[0] == '[' && validPrefixArray(b) {
					continue // an array followed by more input: the reader stops at its end
				}
				if err == nil {
					t.Fatalf("%s: %q read as %q, want an error", name, b, got)
				}
				if !errors.Is(err, ErrElement) {
					t.Fatalf("%s: %q: error %v does not wrap ErrElement", name, b, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %q: %v", name, b, err)
			}
			var ref []json.RawMessage
			if err := json.Unmarshal(b, &ref); err != nil {
				t.Fatalf("%s: encoding/json refuses %q: %v", name, b, err)
			}
			var want []string
			for _, el := range ref {
				want = append(want, string(el))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: %q (-encoding/json +streamed):\n%s", name, b, diff)
			}
		}
	})
}

// validPrefixArray reports whether b starts with a valid array followed by
// other input.
func validPrefixArray(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	var v []json.RawMessage
	return dec.Decode(&v) == nil
}

// A reader's own error is returned as it is, not as an invalid array.
func TestElementReaderReturnsTheReadersError(t *testing.T) {
	limit := errors.New("read limit exceeded")
	r := io.MultiReader(strings.NewReader(`[{"id":"a"},{"id":`), iotest.ErrReader(limit))
	got, err := readAll(r)
	if !errors.Is(err, limit) || errors.Is(err, ErrElement) {
		t.Errorf("error %v, want the reader's", err)
	}
	if diff := cmp.Diff([]string{`{"id":"a"}`}, got); diff != "" {
		t.Errorf("elements before the error (-want +got):\n%s", diff)
	}
}

func TestResultStart(t *testing.T) {
	id := "00000000-0000-4000-8000-000000000001"
	for _, tt := range []struct {
		name, head string
		ok         bool
	}{
		{"the engine's order", `{"type":"invocationresult","invocation_id":"` + id + `","function_id":"state::list","result":[{"a":1}`, true},
		{"spaces", ` { "type" : "invocationresult" , "invocation_id" : "` + id + `" , "result" : [`, true},
		{"result not an array", `{"type":"invocationresult","invocation_id":"` + id + `","result":null}`, false},
		{"result before the id", `{"type":"invocationresult","result":[1],"invocation_id":"` + id + `"}`, false},
		{"another type", `{"type":"invokefunction","invocation_id":"` + id + `","result":[`, false},
		{"cut before the result", `{"type":"invocationresult","invocation_id":"` + id + `","function_id":"sta`, false},
		{"an error", `{"type":"invocationresult","invocation_id":"` + id + `","error":{"code":"x","message":"y"}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gotID, at, ok := ResultStart([]byte(tt.head))
			if ok != tt.ok || ok && (gotID != id || tt.head[at] != '[') {
				t.Errorf("ResultStart = %q, %d, %v; want ok=%v", gotID, at, ok, tt.ok)
			}
		})
	}
}
