package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A type list of null and one other type becomes that type, at every
// depth; data under const, default, enum and examples is left alone.
func TestPlainTypes(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"nullable array", `{"type":"object","properties":{"uris":{"type":["null","array"],"items":{"type":"string"}}}}`,
			`{"type":"object","properties":{"uris":{"type":"array","items":{"type":"string"}}}}`},
		{"null second", `{"type":["array","null"]}`, `{"type":"array"}`},
		{"nested", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":["null","object"]}}}},"items":[{"type":["null","integer"]}]}`,
			`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object"}}}},"items":[{"type":"integer"}]}`},
		{"two others kept", `{"type":["null","string","integer"]}`, `{"type":["null","string","integer"]}`},
		{"data left alone", `{"type":"object","default":{"type":["null","x"]},"enum":[{"type":["null","x"]}]}`,
			`{"type":"object","default":{"type":["null","x"]},"enum":[{"type":["null","x"]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, want any
			_ = json.Unmarshal([]byte(tc.in), &got)
			_ = json.Unmarshal([]byte(tc.want), &want)
			plainTypes(got)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// skill__fetch's uris is a plain array of strings.
func TestFetchSchemaIsPlain(t *testing.T) {
	schema := plainSchema[fetchInput]()
	uris := schema["properties"].(map[string]any)["uris"].(map[string]any)
	if uris["type"] != "array" || uris["items"].(map[string]any)["type"] != "string" {
		t.Errorf("uris = %v, want a plain array of strings", uris)
	}
}

// paged, walked by its cursors, gives every entry of the registry's list
// once and in order, whatever the registry's page size and the bridge's:
// checked against the whole list.
func TestPagedWalksEveryEntryOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 7} {
		all := make([]string, n)
		for i := range all {
			all[i] = fmt.Sprint("e", i)
		}
		for _, regSize := range []int{0, 1, 2, 3} {
			fetch := registryPages(all, regSize)
			for _, size := range []int{0, 1, 2, 3, 10} {
				var got []string
				cursor := ""
				for pages := 0; ; pages++ {
					page, next, err := paged(context.Background(), size, cursor, fetch)
					if err != nil {
						t.Fatal(err)
					}
					if size > 0 && (len(page) > size || (next != "" && len(page) != size)) {
						t.Fatalf("n %d, registry %d, size %d: a page of %d (next %q)", n, regSize, size, len(page), next)
					}
					got = append(got, page...)
					if cursor = next; cursor == "" || pages > n+1 {
						break
					}
				}
				if !slices.Equal(got, all) {
					t.Errorf("n %d, registry %d, size %d: %v, want %v", n, regSize, size, got, all)
				}
			}
		}
	}
	if _, _, err := paged(context.Background(), 2, "garbage!", registryPages(nil, 0)); err == nil {
		t.Error("a cursor the bridge never gave was taken")
	}
}

// registryPages serves all in pages of size (0: one page), with the
// index of the next page's first entry as its cursor.
func registryPages(all []string, size int) func(context.Context, string) ([]string, string, error) {
	return func(_ context.Context, cursor string) ([]string, string, error) {
		if size == 0 {
			return all, "", nil
		}
		start := 0
		if cursor != "" {
			fmt.Sscan(cursor, &start)
		}
		end := min(start+size, len(all))
		next := ""
		if end < len(all) {
			next = fmt.Sprint(end)
		}
		return all[start:end], next, nil
	}
}
