package wire

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArrayElements(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`[]`, []string{}},
		{` [ ] `, []string{}},
		{`[{"id":"a","skill":"x,]}\"{["}, {"id":"b"} ,3,"s",[1,[2]],null]`, []string{`{"id":"a","skill":"x,]}\"{["}`, `{"id":"b"}`, `3`, `"s"`, `[1,[2]]`, `null`}},
		{`{"value":[]}`, nil},
		{`5`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := ArrayElements(json.RawMessage(tt.in))
			var gotS []string
			if got != nil {
				gotS = []string{}
				for _, g := range got {
					gotS = append(gotS, string(g))
				}
			}
			if diff := cmp.Diff(tt.want, gotS); diff != "" {
				t.Errorf("ArrayElements(%s) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
