package usage

import (
	"encoding/json"
	"strconv"
)

// The usage scope holds two kinds of value (docs/decisions.md D84, D87):
// under each replica's key its Record (totals and the current hour,
// rewritten at every flush), and under "<replica>.h<hour>" each hour the
// replica closed (a ClosedHour, written once, deleted by its replica
// once older than HoursKept hours).

// ClosedHour is one replica's counts of one hour that has ended, as
// stored under its own key. It has no "replica" field, so a reader that
// knows only records (before D87) passes it over.
type ClosedHour struct {
	Of   string `json:"of"`
	Hour Hour   `json:"hour"`
}

// hourKey is the key replica's closed hour h is stored under.
func hourKey(replica string, h int64) string {
	return replica + ".h" + strconv.FormatInt(h, 10)
}

// storedValue is either stored form, read from one value.
type storedValue struct {
	Record
	Of   string `json:"of"`
	Hour *Hour  `json:"hour"`
}

// stored sorts the scope's values: every record but self's, and the
// closed hours of every replica but self (whose own are in its counter),
// by replica and start. Values of neither form are passed over.
func stored(values []json.RawMessage, self string) (records []Record, closed map[replicaHour]Hour) {
	closed = map[replicaHour]Hour{}
	for _, raw := range values {
		var v storedValue
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		switch {
		case v.Hour != nil && v.Of != "" && v.Of != self:
			closed[replicaHour{v.Of, v.Hour.Start.Unix()}] = *v.Hour
		case v.Hour == nil && v.Replica != "" && v.Replica != self:
			records = append(records, v.Record)
		}
	}
	return records, closed
}

// replicaHour names one replica's hour.
type replicaHour struct {
	replica string
	start   int64 // unix seconds
}

// hoursOf are every hour of the records and the closed hours, one per
// replica and start: a closed hour, final, wins over the same hour in a
// record written while it was current.
func hoursOf(records []Record, closed map[replicaHour]Hour) map[replicaHour]Hour {
	out := make(map[replicaHour]Hour, len(closed))
	for _, rec := range records {
		for _, h := range rec.Hours {
			out[replicaHour{rec.Replica, h.Start.Unix()}] = h
		}
	}
	for k, h := range closed {
		out[k] = h
	}
	return out
}
