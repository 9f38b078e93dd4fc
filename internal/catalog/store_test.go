package catalog

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
)

func TestListValuesShapes(t *testing.T) {
	tests := []struct {
		name string
		res  string
		want []string
	}{
		{"flat array", `[{"a":1},{"b":2}]`, []string{`{"a":1}`, `{"b":2}`}},
		{"items wrapper", `{"items":[{"key":"k","value":{"a":1}},{"value":"s"}]}`, []string{`{"a":1}`, `"s"`}},
		{"value wrapper", `{"value":[1,2]}`, []string{`1`, `2`}},
		{"empty array", `[]`, nil},
		{"no result", ``, nil},
		{"null", `null`, nil},
		{"other object", `{"rows":[1]}`, nil},
		{"string", `"x"`, nil},
		{"number", `7`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range ListValues(json.RawMessage(tt.res)) {
				got = append(got, string(v))
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimestamp(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"nanoseconds", time.Date(2026, 5, 4, 19, 22, 41, 123456789, time.UTC), "2026-05-04T19:22:41.123456789+00:00"},
		{"whole second keeps nine digits", time.Date(2026, 5, 4, 19, 22, 41, 0, time.UTC), "2026-05-04T19:22:41.000000000+00:00"},
		{"converted to UTC", time.Date(2026, 5, 4, 21, 22, 41, 5, time.FixedZone("CEST", 2*3600)), "2026-05-04T19:22:41.000000005+00:00"},
		{"unknown", time.Time{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Timestamp(tt.in); got != tt.want {
				t.Errorf("timestamp = %q, want %q", got, tt.want)
			}
			if tt.want != "" {
				back, err := time.Parse(time.RFC3339Nano, tt.want)
				if err != nil || !back.Equal(tt.in) {
					t.Errorf("%q does not parse back as RFC 3339 (%v, %v)", tt.want, back, err)
				}
			}
		})
	}
}

func TestStoreStateCalls(t *testing.T) {
	f := catalogtest.NewState()
	s := store{caller: f, scope: "skills", timeout: time.Second}
	ctx := t.Context()
	if v, err := s.get(ctx, "missing"); err != nil || v != nil {
		t.Fatalf("get(missing) = %s, %v; want nil, nil", v, err)
	}
	if _, err := s.set(ctx, "k", map[string]int{"n": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if v, err := s.get(ctx, "k"); err != nil || string(v) != `{"n":1}` {
		t.Fatalf("get(k) = %s, %v", v, err)
	}
	if removed, err := s.delete(ctx, "k"); err != nil || !removed {
		t.Fatalf("delete(k) = %v, %v; want true", removed, err)
	}
	if removed, err := s.delete(ctx, "k"); err != nil || removed {
		t.Fatalf("second delete(k) = %v, %v; want false", removed, err)
	}
	want := []string{`{"scope":"skills","key":"missing"}`, `{"scope":"skills","key":"k"}`}
	if diff := cmp.Diff(want, f.CallsTo("state::get")); diff != "" {
		t.Errorf("state::get payloads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`{"scope":"skills","key":"k","value":{"n":1}}`}, f.CallsTo("state::set")); diff != "" {
		t.Errorf("state::set payloads (-want +got):\n%s", diff)
	}
}

func TestStoredNullIsAbsent(t *testing.T) {
	f := catalogtest.NewState()
	f.Put("skills", "n", "null")
	s := store{caller: f, scope: "skills", timeout: time.Second}
	if v, err := s.get(t.Context(), "n"); err != nil || v != nil {
		t.Errorf("get of a stored null = %s, %v; want nil", v, err)
	}
	if removed, _ := s.delete(t.Context(), "n"); removed {
		t.Errorf("deleting a stored null reported removed")
	}
}
