package usage

import (
	"encoding/json"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
)

// stamp is t as the registry writes every time it answers with
// (docs/decisions.md D87, D11): nine fractional digits and "+00:00". The
// zero time keeps the layout ("0001-01-01T00:00:00.000000000+00:00") so
// a stored record always reads back.
func stamp(t time.Time) string { return t.UTC().Format(contract.TimestampLayout) }

// MarshalJSON writes the row with its first and last use in the
// registry's one time layout (D87); reading takes any RFC 3339 time, so
// records written before D87 ("…Z") still read.
func (r Row) MarshalJSON() ([]byte, error) {
	type fields Row // Row's fields without this method
	return json.Marshal(struct {
		fields
		FirstUsed string `json:"first_used"`
		LastUsed  string `json:"last_used"`
	}{fields(r), stamp(r.FirstUsed), stamp(r.LastUsed)})
}

// MarshalJSON writes the record with its times in the registry's one
// time layout (D87).
func (r Record) MarshalJSON() ([]byte, error) {
	type fields Record
	return json.Marshal(struct {
		fields
		UpdatedAt string `json:"updated_at"`
	}{fields(r), stamp(r.UpdatedAt)})
}
