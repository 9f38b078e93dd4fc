package iii

import (
	"context"
	"encoding/json"
	"errors"
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
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
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
