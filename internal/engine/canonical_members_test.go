package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// memberSeeds are payloads for the fast paths' differential checks:
// canonical objects with the caller's key before, after, between and
// already among their members, nested values, escapes, and shapes the
// fast paths must leave to the slow ones.
var memberSeeds = []string{
	`{}`, `{"id":"a/b","skill":"# T\n\nbody"}`, `{"a":1}`, `{"z":1}`, `{"_a":1,"_d":2}`,
	`{"_caller_worker_id":"old","x":1}`, `{"A":1,"_caller_worker_id":"old"}`,
	`{"key":"k","scope":"skills","value":{"id":"x","registered_at":"t","skill":"s\u2028"}}`,
	`{"key":"k","scope":"skills","value":{"id":"x","skill":"é \"q\" \\ \t"}}`,
	`{"key":"k","scope":"s","value":[1,2.50,{"b":null,"a":true}]}`,
	`{"key":"k","scope":"s","value":null}`, `{"data":{"v":1},"key":"k","scope":"s"}`,
	`{"key":1,"scope":"s","value":2}`, `{"key":"k\u00e9","scope":"s","value":"v"}`,
	`{"scope":"s","key":"k","value":1}`, `{ "a": 1 }`, `{"b":1,"a":2}`, `{"a":1,"a":2}`,
	`[1,2]`, `"s"`, `null`, `1.5`, `{"\u0061":1}`, `{"a":"\u00E9"}`, `{"x":{"_caller_worker_id":1}}`,
	`{"key":"k","scope":"s","value":"v","zz":[{}]}`, `{"a":[]`, `not json`,
	`{"scope":"skills","key":"a/b","value":{"id":"a/b","skill":"# T","registered_at":"t"}}`,
	`{"z":{"b":1,"a":[{"d":1,"c":2}]},"_caller_worker_id":0,"a":1.50e3}`, `{"b":1, "a":2}`,
}

// withCaller's fast path writes the bytes the round trip through a map
// writes, for any payload (differential, with the fuzzer's inputs too).
func FuzzWithCallerMatchesTheRoundTrip(f *testing.F) {
	for _, s := range memberSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const id = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"
		want := withCallerRoundTrip(bytes.Clone(data), id)
		if got := withCaller(bytes.Clone(data), id); !bytes.Equal(got, want) {
			t.Fatalf("withCaller(%s) = %s; the round trip gives %s", data, got, want)
		}
	})
}

// state::set's fast path takes the arguments serde's decoding takes,
// and the value as the slow path encodes it, whenever it takes a payload
// at all; and it takes a skill row's (differential).
func FuzzStateSetMatchesTheDecoder(f *testing.F) {
	for _, s := range memberSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scope, key, value, ok := stateSetCanonical(data)
		if !ok {
			return
		}
		a, e := stateSetInput.decode("state::set", data)
		if e != nil {
			t.Fatalf("the fast path took %s, which the decoder refuses: %s", data, e.Message)
		}
		if want := mustEncode(a["value"]); scope != a.str("scope") || key != a.str("key") || !bytes.Equal(value, want) {
			t.Fatalf("%s: fast path %q %q %s; decoder %q %q %s", data, scope, key, value, a.str("scope"), a.str("key"), want)
		}
	})
}

// A registration's state::set, as the skills worker sends it, takes the
// fast path, and its answer is the one the map encoding gave.
func TestStateSetOfASkillRowTakesTheFastPath(t *testing.T) {
	row := `{"id":"team/s","registered_at":"2026-12-02T00:00:00.000000000+00:00","skill":"# Title\n\nbody"}`
	// The worker's fields in its structs' order: the engine puts them in
	// order as it adds the caller (withCaller).
	sent := `{"scope":"skills","key":"team/s","value":{"id":"team/s","skill":"# Title\n\nbody","registered_at":"2026-12-02T00:00:00.000000000+00:00"}}`
	data := withCaller(json.RawMessage(sent), "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a")
	if _, _, _, ok := stateSetCanonical(data); !ok {
		t.Fatalf("the fast path refused %s", data)
	}
	s := newTestServerWith(t, Options{})
	for _, old := range []string{"null", row} {
		got, e := stateSet(s, DefaultNamespace, data)
		if e != nil {
			t.Fatal(e.Message)
		}
		want := mustEncode(map[string]any{"new_value": json.RawMessage(row), "old_value": json.RawMessage(old)})
		if !bytes.Equal(got, want) {
			t.Errorf("state::set answered %s, want %s", got, want)
		}
	}
}

// BenchmarkRegisterPayload is what the engine does to a 4 KiB skills
// registration's two payloads (issue 28): add the caller to the call's
// data and to state::set's, then take state::set's arguments apart, by
// the fast paths (canonical_members.go) and by the round trip through
// maps they replace.
func BenchmarkRegisterPayload(b *testing.B) {
	body := strings.Repeat("- step: call the function with the recipient; check the result.\n", 64)
	call, _ := json.Marshal(map[string]string{"id": "team/s", "skill": body})
	set, _ := json.Marshal(struct {
		Scope string `json:"scope"`
		Key   string `json:"key"`
		Value any    `json:"value"`
	}{"skills", "team/s", struct {
		ID           string `json:"id"`
		Skill        string `json:"skill"`
		RegisteredAt string `json:"registered_at"`
	}{"team/s", body, "2026-12-02T00:00:00.000000000+00:00"}})
	const id = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			withCaller(call, id)
			if _, _, _, ok := stateSetCanonical(withCaller(set, id)); !ok {
				b.Fatal("the fast path refused state::set")
			}
		}
	})
	b.Run("round-trip", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			withCallerRoundTrip(call, id)
			a, e := stateSetInput.decode("state::set", withCallerRoundTrip(set, id))
			if e != nil {
				b.Fatal(e.Message)
			}
			mustEncode(a["value"])
		}
	})
}
