package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A state event's payload is the same bytes whichever way it is written:
// canonical values (the fast way), values another program stored with
// whitespace, unsorted keys or HTML characters (encoding/json's way),
// absent values, and scopes and keys that need escaping.
func TestStateEventEncodingIsEncodingJSONs(t *testing.T) {
	row := `{"id":"a/b","registered_at":"2026-12-02T00:00:00.000000000+00:00","skill":"# A <b> & \"q\"\n\tcafé \u2028"}`
	for _, ev := range []stateEvent{
		{Type: triggerState, EventType: stateCreated, Scope: "skills", Key: "a/b", OldValue: json.RawMessage("null"), NewValue: json.RawMessage(row)},
		{Type: triggerState, EventType: stateUpdated, Scope: "skills", Key: "a/b", OldValue: json.RawMessage(row), NewValue: json.RawMessage(row)},
		{Type: triggerState, EventType: stateDeleted, Scope: "skills", Key: "a/b", OldValue: json.RawMessage(row), NewValue: json.RawMessage("null")},
		{Type: triggerState, EventType: stateUpdated, Scope: "s<&>\"\u2028", Key: "k\n\x01é", OldValue: json.RawMessage(`{ "b" : 1, "a" : [ 1 , 2 ] }`), NewValue: json.RawMessage(`"<&>"`)},
		{Type: triggerState, EventType: stateUpdated, Scope: "x", Key: "y", OldValue: json.RawMessage(`{"z":1,"a":2}`), NewValue: json.RawMessage(`[1,2.50,"\u00e9"]`)},
	} {
		if got, want := encodeStateEvent(ev), mustEncode(ev); !bytes.Equal(got, want) {
			t.Errorf("encodeStateEvent:\n got %s\nwant %s", got, want)
		}
	}
}

// BenchmarkStateEventEncoding is the payload of a 4 KiB registration's
// state event, written straight and by encoding/json (docs/decisions.md
// D77).
func BenchmarkStateEventEncoding(b *testing.B) {
	skill, err := json.Marshal(strings.Repeat("- step: call the function with the recipient, subject and body; check the result.\n", 50)[:4096])
	if err != nil {
		b.Fatal(err)
	}
	row := json.RawMessage(`{"id":"seq/s1","registered_at":"2026-12-02T00:00:00.000000000+00:00","skill":` + string(skill) + `}`)
	ev := stateEvent{Type: triggerState, EventType: stateUpdated, Scope: "skills", Key: "seq/s1", OldValue: row, NewValue: row}
	b.Run("straight", func(b *testing.B) {
		for b.Loop() {
			encodeStateEvent(ev)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			mustEncode(ev)
		}
	})
}
