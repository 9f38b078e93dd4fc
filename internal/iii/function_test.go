package iii

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type sampleIn struct {
	ID   string   `json:"id"`
	URIs []string `json:"uris"`
	N    *int     `json:"n"`
}

func TestNewFunctionDecodeErrors(t *testing.T) {
	f := NewFunction("test::fn", "", func(_ context.Context, in sampleIn) (string, error) { return in.ID, nil })
	tests := []struct {
		data string
		want string
	}{
		{`[]`, `invalid payload for test::fn: payload must be a JSON object, got array`},
		{`{"id":5}`, `invalid payload for test::fn: field "id" must be a string, got number`},
		{`{"uris":"x"}`, `invalid payload for test::fn: field "uris" must be an array of strings, got string`},
		{`{"n":"x"}`, `invalid payload for test::fn: field "n" must be an integer, got string`},
		// A number literal that does not fit is quoted at most 200 bytes (D27).
		{`{"n":1` + strings.Repeat("0", 5000) + `}`, `invalid payload for test::fn: field "n" must be an integer, got number 1` +
			strings.Repeat("0", 192) + `… (5008 bytes)`},
	}
	for _, tt := range tests {
		t.Run(tt.data[:min(len(tt.data), 40)], func(t *testing.T) {
			_, err := f.Handler(context.Background(), Request{Data: json.RawMessage(tt.data)})
			var ie *Error
			if !errors.As(err, &ie) || ie.Code != CodeInvalidArgument || ie.Message != tt.want {
				t.Fatalf("error = %v, want invalid_argument %q", err, tt.want)
			}
		})
	}
	for _, ok := range []string{`null`, `{}`, `{"id":"a","_caller_worker_id":"w","cursor":"c"}`} {
		out, err := f.Handler(context.Background(), Request{Data: json.RawMessage(ok)})
		if err != nil {
			t.Errorf("payload %s: unexpected error %v (out %v)", ok, err, out)
		}
	}
}
