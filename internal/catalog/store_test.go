package catalog

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fakeState is a Caller serving state::get/set/delete for one scope as
// the engine's state worker does (a missing key answers with no result;
// state::set echoes new_value; state::list answers a flat array, here
// sorted by key), recording every payload.
type fakeState struct {
	mu     sync.Mutex
	values map[string]json.RawMessage
	calls  map[string][]string
}

func newFakeState() *fakeState {
	return &fakeState{values: map[string]json.RawMessage{}, calls: map[string][]string{}}
}

func (f *fakeState) Call(_ context.Context, fn string, data any) (json.RawMessage, error) {
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	var in struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(payload, &in)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[fn] = append(f.calls[fn], string(payload))
	old := f.values[in.Key]
	switch fn {
	case "state::get":
		return old, nil
	case "state::set":
		f.values[in.Key] = in.Value
		return json.Marshal(map[string]json.RawMessage{"old_value": old, "new_value": in.Value})
	case "state::delete":
		delete(f.values, in.Key)
		return old, nil
	case "state::list":
		keys := slices.Sorted(maps.Keys(f.values))
		values := make([]json.RawMessage, len(keys))
		for i, k := range keys {
			values[i] = f.values[k]
		}
		return json.Marshal(values)
	}
	return nil, nil
}

func (f *fakeState) callsTo(fn string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[fn]
}

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
	f := newFakeState()
	s := store{caller: f, scope: "skills", timeout: time.Second}
	ctx := t.Context()
	if v, err := s.get(ctx, "missing"); err != nil || v != nil {
		t.Fatalf("get(missing) = %s, %v; want nil, nil", v, err)
	}
	if err := s.set(ctx, "k", map[string]int{"n": 1}); err != nil {
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
	if diff := cmp.Diff(want, f.callsTo("state::get")); diff != "" {
		t.Errorf("state::get payloads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`{"scope":"skills","key":"k","value":{"n":1}}`}, f.callsTo("state::set")); diff != "" {
		t.Errorf("state::set payloads (-want +got):\n%s", diff)
	}
}

func TestStoredNullIsAbsent(t *testing.T) {
	f := newFakeState()
	f.values["n"] = json.RawMessage("null")
	s := store{caller: f, scope: "skills", timeout: time.Second}
	if v, err := s.get(t.Context(), "n"); err != nil || v != nil {
		t.Errorf("get of a stored null = %s, %v; want nil", v, err)
	}
	if removed, _ := s.delete(t.Context(), "n"); removed {
		t.Errorf("deleting a stored null reported removed")
	}
}
