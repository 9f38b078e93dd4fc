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
	Since *string `json:"since,omitempty" jsonschema_description:"An RFC 3339 time (e.g. 2026-12-01T00:00:00Z): only the ids last used at or after it. Counts are totals since first use."`
	ID    *string `json:"id,omitempty" jsonschema_description:"One skill id: only its row."`
}

// queryFields are the fields a request may carry; the engine adds
// _caller_worker_id to every payload.
var queryFields = []string{"since", "id", "_caller_worker_id"}

// parseQuery reads a request strictly: an unknown field, a since that
// is not a time or an invalid id is an invalid_argument saying what is
// allowed.
func parseQuery(data json.RawMessage) (since time.Time, id string, err error) {
	if len(bytes.TrimSpace(data)) == 0 || bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return time.Time{}, "", nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return time.Time{}, "", contract.Invalidf("invalid payload for %s: want an object with since and id, both optional", contract.FnSkillsUsage)
	}
	for k := range fields {
		if !slices.Contains(queryFields, k) {
			return time.Time{}, "", contract.Invalidf("unknown field %s in %s; allowed: since (an RFC 3339 time), id (a skill id)", ids.Quote(k), contract.FnSkillsUsage)
		}
	}
	var q Query
	if err := json.Unmarshal(data, &q); err != nil {
		return time.Time{}, "", contract.Invalidf("invalid payload for %s: since and id must be strings", contract.FnSkillsUsage)
	}
	if q.Since != nil {
		if since, err = time.Parse(time.RFC3339Nano, *q.Since); err != nil {
			return time.Time{}, "", contract.Invalidf("since %s is not a time; allowed: an RFC 3339 time such as 2026-12-01T00:00:00Z", ids.Quote(*q.Since))
		}
	}
	if q.ID != nil {
		if err := ids.ValidateSkillID(*q.ID); err != nil {
			return time.Time{}, "", contract.Invalidf("id %s is not a skill id: %v", ids.Quote(*q.ID), err)
		}
		id = *q.ID
	}
	return since, id, nil
}

// Function is skills::usage.
func (r *Reporter) Function() iii.Function {
	return iii.Function{
		ID:             contract.FnSkillsUsage,
		Description:    contract.DescSkillsUsage,
		RequestFormat:  iii.SchemaOf[Query](),
		ResponseFormat: iii.SchemaOf[Report](),
		Handler: func(ctx context.Context, req iii.Request) (any, error) {
			since, id, err := parseQuery(req.Data)
			if err != nil {
				return nil, err
			}
			return r.Usage(ctx, since, id)
		},
	}
}

// Usage merges every replica's stored record, with this replica's own
// taken from its counter (newer than any it wrote), keeps the rows last
// used at or after since (all when zero) and of id (all when ""), and
// lists the served skills never opened.
func (r *Reporter) Usage(ctx context.Context, since time.Time, id string) (Report, error) {
	records := []Record{r.cfg.Counter.Record(r.cfg.Replica)}
	var rep Report
	stored, err := r.cfg.Stored(ctx)
	if err != nil {
		rep.Unavailable = err.Error()
	}
	for _, raw := range stored {
		var rec Record
		if json.Unmarshal(raw, &rec) != nil || rec.Replica == "" || rec.Replica == r.cfg.Replica {
			continue
		}
		records = append(records, rec)
	}
	merged := Merge(records...)
	rep.Replicas = len(records)
	served, err := r.cfg.Served(ctx)
	if err != nil {
		return Report{}, err
	}
	for _, s := range served {
		if (id == "" || s == id) && !merged.Skills[s].Opened() {
			rep.NeverOpened = append(rep.NeverOpened, s)
		}
	}
	slices.Sort(rep.NeverOpened)
	if rep.NeverOpened == nil {
		rep.NeverOpened = []string{}
	}
	rep.Skills = keep(merged.Skills, since, id)
	rep.Sections = map[string]Row{}
	if id == "" {
		rep.Sections = keep(merged.Sections, since, "")
	}
	return rep, nil
}

// keep is rows without those last used before since, or not of id.
func keep(rows map[string]Row, since time.Time, id string) map[string]Row {
	out := make(map[string]Row, len(rows))
	for k, row := range rows {
		if (id == "" || k == id) && !row.LastUsed.Before(since) {
			out[k] = row
		}
	}
	return out
}

// String is the report in one line, for logs and test failures.
func (r Report) String() string {
	return fmt.Sprintf("%d skills, %d sections, %d never opened, %d replicas", len(r.Skills), len(r.Sections), len(r.NeverOpened), r.Replicas)
}
