package usage

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// skills::usage answers its times in the layout of registered_at
// (docs/decisions.md D87, D11), and a stored record reads back whether
// it was written so or, before D87, with "Z".
func TestRowTimesInTheRegistryLayout(t *testing.T) {
	first := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	last := time.Date(2026, 12, 2, 9, 30, 1, 5, time.FixedZone("CET", 3600))
	b, err := json.Marshal(Row{Read: 2, FirstUsed: first, LastUsed: last})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"read":2,"first_used":"2026-12-02T07:00:00.000000000+00:00","last_used":"2026-12-02T08:30:01.000000005+00:00"}`
	if string(b) != want {
		t.Errorf("row = %s\nwant  %s", b, want)
	}
	for _, stored := range []string{want, `{"read":2,"first_used":"2026-12-02T07:00:00Z","last_used":"2026-12-02T08:30:01.000000005Z"}`} {
		var back Row
		if err := json.Unmarshal([]byte(stored), &back); err != nil {
			t.Fatal(err)
		}
		if !back.FirstUsed.Equal(first) || !back.LastUsed.Equal(last) || back.Read != 2 {
			t.Errorf("%s read back as %+v", stored, back)
		}
	}
	rec, err := json.Marshal(Record{Replica: "r", UpdatedAt: first})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(rec, &fields); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("2026-12-02T07:00:00.000000000+00:00", fields["updated_at"]); diff != "" {
		t.Errorf("updated_at (-want +got):\n%s", diff)
	}
}
