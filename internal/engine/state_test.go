package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// outcome is what a caller sees of a call: the raw result field (nil when
// the field is absent, "null" for an explicit null) or the error. It is
// read from the frame's bytes because the wire decoder, like the engine,
// reads an explicit null as absent.
type outcome struct {
	Result *string
	Error  *wire.ErrorBody
}

func callOutcome(p *peer, fn, data string) outcome {
	p.t.Helper()
	id := p.invoke(fn, data)
	m, raw, err := p.recvRaw()
	if err != nil {
		p.t.Fatal(err)
	}
	res, ok := m.(wire.InvocationResult)
	if !ok || res.InvocationID != id || res.FunctionID != fn {
		p.t.Fatalf("got %s, want the result of %s invocation %s", raw, fn, id)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		p.t.Fatal(err)
	}
	o := outcome{Error: res.Error}
	if r, ok := fields["result"]; ok {
		s := string(r)
		o.Result = &s
	}
	return o
}

func result(s string) outcome { return outcome{Result: &s} }

func deserr(fn, msg string) outcome {
	return outcome{Error: &wire.ErrorBody{Code: "deserialization_error",
		Message: "Failed to deserialize input for " + fn + ": " + msg}}
}

func TestStateQuirks(t *testing.T) {
	forEachBackend(t, Options{}, testStateQuirks)
}

func testStateQuirks(t *testing.T, b stateBackend, s *Engine) {
	p := dial(t, s)
	groups := `{"groups":["emptied","s"]}`
	if !b.keepsEmptiedScopes {
		groups = `{"groups":["s"]}`
	}
	// Steps run in order against one store.
	steps := []struct {
		name, fn, data string
		want           outcome
	}{
		{"get of a missing key has no result field", "state::get", `{"scope":"s","key":"a"}`, outcome{}},
		{"set of a new key", "state::set", `{"scope":"s","key":"a","value":{"y":1,"x":[2]}}`,
			result(`{"new_value":{"x":[2],"y":1},"old_value":null}`)},
		{"set through the data alias", "state::set", `{"scope":"s","key":"a","data":2}`,
			result(`{"new_value":2,"old_value":{"x":[2],"y":1}}`)},
		{"get", "state::get", `{"scope":"s","key":"a"}`, result(`2`)},
		{"set null", "state::set", `{"scope":"s","key":"b","value":null}`, result(`{"new_value":null,"old_value":null}`)},
		{"get of a stored null is an explicit null", "state::get", `{"scope":"s","key":"b"}`, result(`null`)},
		{"delete returns the deleted value", "state::delete", `{"scope":"s","key":"b"}`, result(`null`)},
		{"delete of a missing key has no result field", "state::delete", `{"scope":"s","key":"b"}`, outcome{}},
		{"delete in an unknown scope", "state::delete", `{"scope":"nowhere","key":"b"}`, outcome{}},
		{"list returns values only", "state::list", `{"scope":"s"}`, result(`[2]`)},
		{"list of an unknown scope is empty", "state::list", `{"scope":"nowhere"}`, result(`[]`)},
		{"empty a scope", "state::set", `{"scope":"emptied","key":"k","value":1}`, result(`{"new_value":1,"old_value":null}`)},
		{"delete its only key", "state::delete", `{"scope":"emptied","key":"k"}`, result(`1`)},
		{"list_groups, sorted (emptied scopes kept but in Redis)", "state::list_groups", `{}`, result(groups)},
		{"missing scope", "state::set", `{}`, deserr("state::set", "missing field `scope`")},
		{"missing key", "state::set", `{"scope":"s"}`, deserr("state::set", "missing field `key`")},
		{"missing value", "state::set", `{"scope":"s","key":"k"}`, deserr("state::set", "missing field `value`")},
		{"value and data together", "state::set", `{"scope":"s","key":"k","value":1,"data":2}`,
			deserr("state::set", "duplicate field `value`")},
		{"mistyped scope", "state::set", `{"scope":1,"key":"k","value":1}`,
			deserr("state::set", "invalid type: integer `1`, expected a string")},
		{"keys are checked in sorted order", "state::set", `{"scope":{},"key":[],"value":1}`,
			deserr("state::set", "invalid type: sequence, expected a string")},
		{"null key", "state::get", `{"scope":"s","key":null}`, deserr("state::get", "invalid type: null, expected a string")},
		{"map scope", "state::get", `{"scope":{},"key":"k"}`, deserr("state::get", "invalid type: map, expected a string")},
		{"float key", "state::delete", `{"scope":"s","key":1.5}`,
			deserr("state::delete", "invalid type: floating point `1.5`, expected a string")},
		{"bool scope", "state::list", `{"scope":true}`, deserr("state::list", "invalid type: boolean `true`, expected a string")},
		{"non-object input", "state::get", `"text"`,
			deserr("state::get", `invalid type: string "text", expected struct StateGetInput`)},
		{"list_groups needs an object", "state::list_groups", `null`,
			deserr("state::list_groups", "invalid type: null, expected struct StateListGroupsInput")},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			p.t = t
			if diff := cmp.Diff(st.want, callOutcome(p, st.fn, st.data)); diff != "" {
				t.Errorf("%s(%s) (-want +got):\n%s", st.fn, st.data, diff)
			}
		})
	}
	p.t = t
}

// A small scope keeps first-write order in every backend (in Redis, as a
// small hash keeps it).
func TestStateListKeepsFirstWriteOrder(t *testing.T) {
	forEachBackend(t, Options{}, func(t *testing.T, _ stateBackend, s *Engine) {
		testStateListKeepsFirstWriteOrder(t, s)
	})
}

func testStateListKeepsFirstWriteOrder(t *testing.T, s *Engine) {
	p := dial(t, s)
	for _, kv := range [][2]string{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"a", "10"}} {
		p.callOK("state::set", fmt.Sprintf(`{"scope":"o","key":%q,"value":%s}`, kv[0], kv[1]))
	}
	if got := string(p.callOK("state::list", `{"scope":"o"}`)); got != `[10,2,3]` {
		t.Errorf("after overwrite: %s, want [10,2,3]", got)
	}
	p.callOK("state::delete", `{"scope":"o","key":"b"}`)
	p.callOK("state::set", `{"scope":"o","key":"b","value":20}`)
	if got := string(p.callOK("state::list", `{"scope":"o"}`)); got != `[10,3,20]` {
		t.Errorf("after delete and re-add: %s, want [10,3,20]", got)
	}
}

// Memory and Redis: the state log's volume is its own tests' (one fsync
// per write of one connection makes 10,000 take seconds).
func TestStateHoldsTenThousandRows(t *testing.T) {
	forBackends(t, []string{"memory", "redis"}, Options{}, testStateHoldsTenThousandRows)
}

func testStateHoldsTenThousandRows(t *testing.T, b stateBackend, s *Engine) {
	p := dial(t, s)
	// Writes are pipelined with a bounded number in flight, as a busy
	// worker would issue them.
	const n, window = 10000, 64
	for i := range n {
		p.invoke("state::set", fmt.Sprintf(`{"scope":"big","key":"k%05d","value":{"i":%d}}`, i, i))
		if i >= window {
			if res := expect[wire.InvocationResult](p); res.Error != nil {
				t.Fatalf("state::set failed: %+v", res.Error)
			}
		}
	}
	for range window {
		if res := expect[wire.InvocationResult](p); res.Error != nil {
			t.Fatalf("state::set failed: %+v", res.Error)
		}
	}
	var rows []struct{ I int }
	if err := json.Unmarshal(p.callOK("state::list", `{"scope":"big"}`), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("state::list returned %d rows, want %d", len(rows), n)
	}
	if !b.ordered { // Redis's large hash has an order of its own: compare as sets
		slices.SortFunc(rows, func(a, b struct{ I int }) int { return a.I - b.I })
	}
	for i, r := range rows {
		if r.I != i {
			t.Fatalf("row %d holds %d: insertion order lost", i, r.I)
		}
	}
	if got := string(p.callOK("state::get", `{"scope":"big","key":"k09999"}`)); got != `{"i":9999}` {
		t.Errorf("state::get = %s", got)
	}
}

func TestStateSeedHelpers(t *testing.T) {
	forEachBackend(t, Options{}, func(t *testing.T, _ stateBackend, s *Engine) { testStateSeedHelpers(t, s) })
}

func testStateSeedHelpers(t *testing.T, s *Engine) {
	if err := s.SetState("skills", "pdf", json.RawMessage(`{"skill": "# PDF", "id":"pdf"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetState("skills", "bad", json.RawMessage(`{`)); err == nil {
		t.Error("SetState accepted invalid JSON")
	}
	p := dial(t, s)
	if got := string(p.callOK("state::get", `{"scope":"skills","key":"pdf"}`)); got != `{"id":"pdf","skill":"# PDF"}` {
		t.Errorf("seeded row read back as %s", got)
	}
	p.callOK("state::set", `{"scope":"skills","key":"xlsx","value":{"id":"xlsx"}}`)
	if v, ok := s.State("skills", "xlsx"); !ok || string(v) != `{"id":"xlsx"}` {
		t.Errorf("State = %s, %v", v, ok)
	}
	if _, ok := s.State("skills", "nope"); ok {
		t.Error("State of a missing key reported ok")
	}
	var got []string
	for _, v := range s.StateValues("skills") {
		got = append(got, string(v))
	}
	if diff := cmp.Diff([]string{`{"id":"pdf","skill":"# PDF"}`, `{"id":"xlsx"}`}, got); diff != "" {
		t.Errorf("StateValues (-want +got):\n%s", diff)
	}
}
