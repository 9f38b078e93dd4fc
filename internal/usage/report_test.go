package usage

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/paging"
)

// reporter is a Reporter for replica "me" over c, with other replicas'
// records stored as given (err: state unavailable) and served skills.
func reporter(c *Counter, stored []Record, err error, served ...string) *Reporter {
	return NewReporter(ReporterConfig{Counter: c, Replica: "me",
		Stored: func(context.Context) ([]json.RawMessage, error) {
			var out []json.RawMessage
			for _, r := range stored {
				b, _ := json.Marshal(r)
				out = append(out, b)
			}
			return out, err
		},
		Served: func(context.Context) ([]string, error) { return served, nil },
	})
}

// skills::usage adds this replica's counts to every other replica's
// record; its own stored record (older) is replaced by its counter;
// never_opened are the served skills no replica read or fetched.
func TestUsageMergesReplicas(t *testing.T) {
	clk := newClock()
	t0 := clk.now()
	c := NewCounter(clk.now)
	c.Read("a")
	c.Searched("b", 2)
	stale := Record{Replica: "me", Skills: map[string]Row{"a": {Read: 99}}}
	other := Record{Replica: "other", UpdatedAt: t0, Skills: map[string]Row{
		"a": {Fetched: 1, FirstUsed: t0, LastUsed: t0}, "c": {Read: 1, FirstUsed: t0, LastUsed: t0},
	}}
	rep, err := reporter(c, []Record{stale, other}, nil, "a", "b", "c", "d").Usage(t.Context(), time.Time{}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Skills: map[string]Row{
		"a": {Read: 1, Fetched: 1, FirstUsed: t0, LastUsed: t0},
		"b": {Searched: 1, Rank2to3: 1, FirstUsed: t0, LastUsed: t0},
		"c": {Read: 1, FirstUsed: t0, LastUsed: t0},
	}, Sections: map[string]Row{}, NeverOpened: []string{"b", "d"}, Replicas: 2}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

// With state unavailable the answer is this replica's counts, and says
// why the others' are missing: usage never fails for them.
func TestUsageWithStateUnavailable(t *testing.T) {
	c := NewCounter(nil)
	c.Read("a")
	rep, err := reporter(c, nil, errors.New("state::list: timed out"), "a").Usage(t.Context(), time.Time{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skills["a"].Read != 1 || rep.Replicas != 1 || !strings.Contains(rep.Unavailable, "timed out") {
		t.Errorf("usage = %+v; want a read once, 1 replica, unavailable naming the failure", rep)
	}
}

// since keeps the ids used in its hour or later; id keeps one id.
func TestUsageFilters(t *testing.T) {
	clk := newClock()
	t0 := clk.now()
	c := NewCounter(clk.now)
	c.Read("old")
	clk.advance(time.Hour)
	c.Read("new")
	c.Section("acme::status")
	r := reporter(c, nil, nil, "old", "new", "never")
	rep, _ := r.Usage(t.Context(), t0.Add(time.Hour+time.Minute), "")
	if _, ok := rep.Skills["old"]; ok || rep.Skills["new"].Read != 1 || rep.Sections["acme::status"].Served != 1 {
		t.Errorf("since: skills %v, sections %v; want new alone and the section", rep.Skills, rep.Sections)
	}
	rep, _ = r.Usage(t.Context(), time.Time{}, "never")
	if len(rep.Skills) != 0 || len(rep.Sections) != 0 || !cmp.Equal(rep.NeverOpened, []string{"never"}) {
		t.Errorf("id never: %+v; want no rows and never_opened [never]", rep)
	}
}

// Bad input is invalid_argument naming the value and what is allowed;
// the engine's _caller_worker_id is no unknown field.
func TestUsageBadInput(t *testing.T) {
	fn := reporter(NewCounter(nil), nil, nil).Function()
	for _, tc := range []struct{ payload, want string }{
		{`{"since":"yesterday"}`, `since "yesterday" is not a time; allowed: an RFC 3339 time`},
		{`{"id":"fn/x"}`, `id "fn/x" is not a skill id`},
		{`{"id":""}`, `id "" is not a skill id`},
		{`{"ids":["a"]}`, `unknown field "ids" in skills::usage; allowed: since (an RFC 3339 time), id (a skill id), cursor (a nextCursor)`},
		{`{"since":5}`, `since, id and cursor must be strings`},
		{`{"cursor":5}`, `since, id and cursor must be strings`},
		{`[1]`, `want an object`},
	} {
		_, err := fn.Handler(t.Context(), iii.Request{Data: json.RawMessage(tc.payload)})
		ce, ok := errors.AsType[*contract.Error](err)
		if !ok || ce.Code != contract.CodeInvalidArgument || !strings.Contains(ce.Message, tc.want) {
			t.Errorf("%s: error %v; want invalid_argument containing %q", tc.payload, err, tc.want)
		}
	}
	for _, ok := range []string{``, `null`, `{}`, `{"_caller_worker_id":"w1","since":"2026-12-01T00:00:00Z","id":"a/b"}`,
		`{"since":"2026-12-01T00:00:00.000000000+00:00"}`, `{"since":"2026-12-01T01:00:00+01:00"}`} {
		if _, err := fn.Handler(t.Context(), iii.Request{Data: json.RawMessage(ok)}); err != nil {
			t.Errorf("%s: %v; want an answer", ok, err)
		}
	}
}

// With page_size set, skills::usage answers its entries page by page:
// the skills' rows, then the sections', then never_opened, each page in
// its fields, and the pages together are the whole answer
// (docs/decisions.md D87, D43). Bad cursors are refused as D43's lists
// refuse them.
func TestUsagePages(t *testing.T) {
	clk := newClock()
	c := NewCounter(clk.now)
	for _, id := range []string{"c", "a", "b"} {
		c.Listed(nil, func() []string { return []string{id} })
	}
	c.Read("a")
	c.Section("acme::status")
	size := 2
	r := reporter(c, nil, nil, "a", "b", "c", "d")
	r.cfg.PageSize = func() int { return size }
	fn := r.Function()
	call := func(payload string) (Report, error) {
		res, err := fn.Handler(t.Context(), iii.Request{Data: json.RawMessage(payload)})
		if err != nil {
			return Report{}, err
		}
		return res.(Report), nil
	}

	whole, _ := r.Usage(t.Context(), time.Time{}, "")
	var pages []Report
	for payload := `{}`; ; {
		rep, err := call(payload)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, rep)
		if rep.NextCursor == "" || len(pages) > 10 {
			break
		}
		payload = `{"cursor":"` + rep.NextCursor + `"}`
	}
	type entries struct {
		Skills, Sections, NeverOpened []string
	}
	got := make([]entries, len(pages))
	joined := Report{Skills: map[string]Row{}, Sections: map[string]Row{}, NeverOpened: []string{}, Replicas: 1}
	for i, p := range pages {
		got[i] = entries{keysOf(p.Skills), keysOf(p.Sections), p.NeverOpened}
		for k, v := range p.Skills {
			joined.Skills[k] = v
		}
		for k, v := range p.Sections {
			joined.Sections[k] = v
		}
		joined.NeverOpened = append(joined.NeverOpened, p.NeverOpened...)
	}
	want := []entries{
		{[]string{"a", "b"}, []string{}, []string{}},
		{[]string{"c"}, []string{"acme::status"}, []string{}},
		{[]string{}, []string{}, []string{"b", "c"}},
		{[]string{}, []string{}, []string{"d"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(whole, joined); diff != "" {
		t.Errorf("the pages joined against the whole answer (-whole +pages):\n%s", diff)
	}

	for _, tc := range []struct{ cursor, want string }{
		{paging.Cursor(pageList, "skill:gone"), `stale cursor: "skill:gone" is no longer in the list`},
		{"%%%", `cursor "%%%" is not one this worker gave out`},
		{paging.Cursor("resources", "iii://a"), "cursor is for the resources list, not the usage list"},
	} {
		_, err := call(`{"cursor":"` + tc.cursor + `"}`)
		ce, ok := errors.AsType[*contract.Error](err)
		if !ok || ce.Code != contract.CodeInvalidArgument || !strings.Contains(ce.Message, tc.want) {
			t.Errorf("cursor %s: %v; want invalid_argument containing %q", tc.cursor, err, tc.want)
		}
	}

	size = 0 // page_size 0: the whole answer, a cursor ignored (D43)
	rep, err := call(`{"cursor":"` + paging.Cursor(pageList, "skill:gone") + `"}`)
	if err != nil || len(rep.Skills) != 3 || rep.NextCursor != "" {
		t.Errorf("page_size 0: %v, %v; want the whole answer", rep, err)
	}
}

func keysOf(m map[string]Row) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
