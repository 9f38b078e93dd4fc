package catalog

import (
	"encoding/json"
	"testing"
)

// A row with no revision is a 0.2 row, byte for byte; a row with one
// carries it, and both decode (docs/decisions.md D83).
func TestRowsCarryTheirRevisionAdditively(t *testing.T) {
	for _, tc := range []struct {
		row  SkillRow
		want string
	}{
		{SkillRow{ID: "a", Skill: "# A", RegisteredAt: "t"}, `{"id":"a","skill":"# A","registered_at":"t"}`},
		{SkillRow{ID: "a", Skill: "# A", RegisteredAt: "t", Revision: 3}, `{"id":"a","skill":"# A","registered_at":"t","revision":3}`},
	} {
		b, err := json.Marshal(tc.row)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("row %+v encodes as %s, want %s", tc.row, b, tc.want)
		}
		got, err := DecodeSkillRow(b)
		if err != nil || got != tc.row {
			t.Errorf("DecodeSkillRow(%s) = %+v, %v; want %+v", b, got, err, tc.row)
		}
	}
}

// The history keeps the newest kept bodies and at most
// maxRevisionRecords records, oldest dropped first.
func TestTrimHistoryKeepsTheNewest(t *testing.T) {
	body := "b"
	var revs []Revision
	for i := range maxRevisionRecords + 5 {
		revs = append(revs, Revision{Revision: int64(i + 1), Body: &body})
	}
	revs = trimHistory(revs, 3)
	if len(revs) != maxRevisionRecords || revs[0].Revision != 6 {
		t.Fatalf("kept %d records from revision %d, want %d from 6", len(revs), revs[0].Revision, maxRevisionRecords)
	}
	for i, r := range revs {
		if kept := r.Body != nil; kept != (i >= len(revs)-3) {
			t.Errorf("revision %d keeps its body: %v", r.Revision, kept)
		}
	}
}
