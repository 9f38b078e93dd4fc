package usage

import "time"

// Row is the usage of one skill id (or, in Record.Sections, of one
// function served as an iii://fn section) on one replica or merged over
// several: a count per stage and the first and last use of any stage
// (docs/decisions.md D84). Zero counts are left out of its JSON.
type Row struct {
	// Listed counts the index, list and MCP list answers that named it.
	Listed uint64 `json:"listed,omitempty"`
	// Searched counts the skill::search answers it was a result of;
	// Rank1, Rank2to3, Rank4to10 and RankBelow split them by its rank.
	Searched  uint64 `json:"searched,omitempty"`
	Rank1     uint64 `json:"rank_1,omitempty"`
	Rank2to3  uint64 `json:"rank_2_3,omitempty"`
	Rank4to10 uint64 `json:"rank_4_10,omitempty"`
	RankBelow uint64 `json:"rank_11_plus,omitempty"`
	// Read counts the reads of its body alone (skills::resources-read,
	// skills::mcp-skills-read); Fetched the skill::fetch answers that
	// held it, once per answer however often the answer names it.
	Read    uint64 `json:"read,omitempty"`
	Fetched uint64 `json:"fetched,omitempty"`
	// Served counts, for a section, the reads of iii://fn/… it answered.
	Served uint64 `json:"served,omitempty"`
	// FirstUsed and LastUsed bound the uses counted.
	FirstUsed time.Time `json:"first_used"`
	LastUsed  time.Time `json:"last_used"`
}

// Opened reports whether the row counts a read or a fetch.
func (r Row) Opened() bool { return r.Read+r.Fetched > 0 }

// Add adds o's counts to r and widens r's first and last use to o's.
func (r *Row) Add(o Row) {
	r.Listed += o.Listed
	r.Searched += o.Searched
	r.Rank1 += o.Rank1
	r.Rank2to3 += o.Rank2to3
	r.Rank4to10 += o.Rank4to10
	r.RankBelow += o.RankBelow
	r.Read += o.Read
	r.Fetched += o.Fetched
	r.Served += o.Served
	if !o.FirstUsed.IsZero() && (r.FirstUsed.IsZero() || o.FirstUsed.Before(r.FirstUsed)) {
		r.FirstUsed = o.FirstUsed
	}
	if o.LastUsed.After(r.LastUsed) {
		r.LastUsed = o.LastUsed
	}
}

// Record is one replica's totals since it started, as the Flusher
// writes them to state under the replica's key: the whole record each
// time, so a write that failed is made good by the next one.
type Record struct {
	Replica   string         `json:"replica"`
	UpdatedAt time.Time      `json:"updated_at"`
	Skills    map[string]Row `json:"skills"`
	Sections  map[string]Row `json:"sections"`
	// Hours are the counts of the last HoursKept UTC hours with a use,
	// oldest first, the current one last (docs/decisions.md D87); a
	// record written before D87 has none.
	Hours []Hour `json:"hours,omitempty"`
}

// Merge adds every record's rows into one record (Replica empty), so
// counts from every replica add up; UpdatedAt is the latest.
func Merge(records ...Record) Record {
	out := Record{Skills: map[string]Row{}, Sections: map[string]Row{}}
	for _, rec := range records {
		if rec.UpdatedAt.After(out.UpdatedAt) {
			out.UpdatedAt = rec.UpdatedAt
		}
		for _, m := range []struct{ to, from map[string]Row }{{out.Skills, rec.Skills}, {out.Sections, rec.Sections}} {
			for id, r := range m.from {
				sum := m.to[id]
				sum.Add(r)
				m.to[id] = sum
			}
		}
	}
	return out
}
