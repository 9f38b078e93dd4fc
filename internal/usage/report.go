package usage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Report is a skills::usage answer (docs/decisions.md D84).
type Report struct {
	// Skills and Sections are the rows merged over every replica's
	// record (a section's key is its function id), sorted by key on the
	// wire.
	Skills   map[string]Row `json:"skills"`
	Sections map[string]Row `json:"sections"`
	// NeverOpened are the skills served now that no replica has read or
	// fetched, sorted.
	NeverOpened []string `json:"never_opened"`
	// Replicas is how many replicas' records were merged.
	Replicas int `json:"replicas"`
	// CountedSince, with since, is when the counts start: the start of
	// the UTC hour since falls in, or of the oldest hour kept
	// (HoursKept) when since is older (docs/decisions.md D87).
	CountedSince string `json:"counted_since,omitempty"`
	// NextCursor, with page_size set, is the cursor of the next page
	// when more entries follow (D43, D87).
	NextCursor string `json:"nextCursor,omitempty"`
	// Unavailable says why the other replicas' records could not be read:
	// the answer then holds this replica's counts alone.
	Unavailable string `json:"unavailable,omitempty"`
}

// ReporterConfig is what a Reporter needs.
type ReporterConfig struct {
	Counter *Counter // this replica's counts; required
	Replica string   // this replica's key in the records' scope
	// Stored returns every replica's record as stored; required.
	Stored func(ctx context.Context) ([]json.RawMessage, error)
	// Served returns the ids of the skills served now; required.
	Served func(ctx context.Context) ([]string, error)
	// PageSize returns the page_size in force (D43; 0 or nil: the
	// answer is whole).
	PageSize func() int
}

// Reporter serves skills::usage.
type Reporter struct{ cfg ReporterConfig }

// NewReporter returns a Reporter over cfg; it panics when a required
// field is missing, a wiring mistake caught at start-up.
func NewReporter(cfg ReporterConfig) *Reporter {
	if cfg.Counter == nil || cfg.Stored == nil || cfg.Served == nil {
		panic("usage: ReporterConfig.Counter, Stored and Served are required")
	}
	return &Reporter{cfg: cfg}
}

// Query is a skills::usage request.
type Query struct {
	Since  *string `json:"since,omitempty" jsonschema_description:"An RFC 3339 time (e.g. 2026-12-01T00:00:00Z): the uses counted from the start of the UTC hour it falls in (at most 48 hours back, see counted_since), and only the ids used then."`
	ID     *string `json:"id,omitempty" jsonschema_description:"One skill id: only its row."`
	Cursor *string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page, when the worker's page_size is set."`
}

// queryFields are the fields a request may carry; the engine adds
// _caller_worker_id to every payload.
var queryFields = []string{"since", "id", "cursor", "_caller_worker_id"}

// parseQuery reads a request strictly: an unknown field, a since that
// is not a time or an invalid id is an invalid_argument saying what is
// allowed. A cursor is checked when a page is cut.
func parseQuery(data json.RawMessage) (since time.Time, id string, cursor *string, err error) {
	if len(bytes.TrimSpace(data)) == 0 || bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return time.Time{}, "", nil, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return time.Time{}, "", nil, contract.Invalidf("invalid payload for %s: want an object with since, id and cursor, all optional", contract.FnSkillsUsage)
	}
	for k := range fields {
		if !slices.Contains(queryFields, k) {
			return time.Time{}, "", nil, contract.Invalidf("unknown field %s in %s; allowed: since (an RFC 3339 time), id (a skill id), cursor (a nextCursor)", ids.Quote(k), contract.FnSkillsUsage)
		}
	}
	var q Query
	if err := json.Unmarshal(data, &q); err != nil {
		return time.Time{}, "", nil, contract.Invalidf("invalid payload for %s: since, id and cursor must be strings", contract.FnSkillsUsage)
	}
	if q.Since != nil {
		if since, err = time.Parse(time.RFC3339Nano, *q.Since); err != nil {
			return time.Time{}, "", nil, contract.Invalidf("since %s is not a time; allowed: an RFC 3339 time such as 2026-12-01T00:00:00Z", ids.Quote(*q.Since))
		}
	}
	if q.ID != nil {
		if err := ids.ValidateSkillID(*q.ID); err != nil {
			return time.Time{}, "", nil, contract.Invalidf("id %s is not a skill id: %v", ids.Quote(*q.ID), err)
		}
		id = *q.ID
	}
	return since, id, q.Cursor, nil
}

// Function is skills::usage.
func (r *Reporter) Function() iii.Function {
	return iii.Function{
		ID:             contract.FnSkillsUsage,
		Description:    contract.DescSkillsUsage,
		RequestFormat:  iii.SchemaOf[Query](),
		ResponseFormat: iii.SchemaOf[Report](),
		Handler: func(ctx context.Context, req iii.Request) (any, error) {
			since, id, cursor, err := parseQuery(req.Data)
			if err != nil {
				return nil, err
			}
			rep, err := r.Usage(ctx, since, id)
			if err != nil || r.cfg.PageSize == nil {
				return rep, err
			}
			return page(rep, cursor, r.cfg.PageSize())
		},
	}
}

// Usage merges every replica's stored record, with this replica's own
// taken from its counter (newer than any it wrote), and lists the served
// skills never opened. With since (zero: all time) the counts are those
// of the hours from since's on (D87); id keeps its row alone.
func (r *Reporter) Usage(ctx context.Context, since time.Time, id string) (Report, error) {
	var rep Report
	values, err := r.cfg.Stored(ctx)
	if err != nil {
		rep.Unavailable = err.Error()
	}
	others, closed := stored(values, r.cfg.Replica)
	records := append([]Record{r.cfg.Counter.Record(r.cfg.Replica)}, others...)
	merged := Merge(records...)
	rep.Replicas = len(records)
	skills, sections := merged.Skills, merged.Sections
	if !since.IsZero() {
		from := r.countedSince(since)
		rep.CountedSince = stamp(from)
		skills, sections = inHours(hoursOf(records, closed), from, merged)
	}
	served, err := r.cfg.Served(ctx)
	if err != nil {
		return Report{}, err
	}
	for _, s := range served {
		if (id == "" || s == id) && !skills[s].Opened() {
			rep.NeverOpened = append(rep.NeverOpened, s)
		}
	}
	slices.Sort(rep.NeverOpened)
	if rep.NeverOpened == nil {
		rep.NeverOpened = []string{}
	}
	rep.Skills = skills
	if id != "" {
		rep.Skills = map[string]Row{}
		if row, ok := skills[id]; ok {
			rep.Skills[id] = row
		}
	}
	rep.Sections = map[string]Row{}
	if id == "" {
		rep.Sections = sections
	}
	return rep, nil
}

// countedSince is the start of since's UTC hour, or of the oldest hour
// a record keeps when since is older.
func (r *Reporter) countedSince(since time.Time) time.Time {
	oldest := hourOf(r.cfg.Counter.now().UnixNano()) - HoursKept + 1
	return hourStart(max(hourOfTime(since), oldest))
}

// inHours adds up the hours that start at or after from, id by id, with
// each id's first and last use of all time (from merged). A record
// written before D87 has no hours and adds nothing.
func inHours(hours map[replicaHour]Hour, from time.Time, merged Record) (skills, sections map[string]Row) {
	sk, sec := map[string]Counts{}, map[string]Counts{}
	for _, h := range hours {
		if h.Start.Before(from) {
			continue
		}
		for _, m := range []struct{ to, from map[string]Counts }{{sk, h.Skills}, {sec, h.Sections}} {
			for k, n := range m.from {
				sum := m.to[k]
				sum.add(n)
				m.to[k] = sum
			}
		}
	}
	rows := func(counts map[string]Counts, all map[string]Row) map[string]Row {
		out := make(map[string]Row, len(counts))
		for k, n := range counts {
			row := n.row()
			row.FirstUsed, row.LastUsed = all[k].FirstUsed, all[k].LastUsed
			out[k] = row
		}
		return out
	}
	return rows(sk, merged.Skills), rows(sec, merged.Sections)
}

// String is the report in one line, for logs and test failures.
func (r Report) String() string {
	return fmt.Sprintf("%d skills, %d sections, %d never opened, %d replicas", len(r.Skills), len(r.Sections), len(r.NeverOpened), r.Replicas)
}
