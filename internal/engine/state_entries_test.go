package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// entriesPage is a decoded state::list_entries result.
type entriesPage struct {
	Entries    [][2]json.RawMessage `json:"entries"`
	NextCursor *string              `json:"next_cursor"`
	Done       bool                 `json:"done"`
	Offset     int                  `json:"offset"`
	Total      int                  `json:"total"`
}

func decodePage(t *testing.T, raw json.RawMessage) entriesPage {
	t.Helper()
	var p entriesPage
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("page %s: %v", raw, err)
	}
	if p.Done != (p.NextCursor == nil) {
		t.Fatalf("page %s: done is %v but next_cursor is %v", raw, p.Done, p.NextCursor)
	}
	return p
}

// entries renders a page's entries as key=value strings.
func (p entriesPage) entries() []string {
	out := make([]string, 0, len(p.Entries))
	for _, e := range p.Entries {
		var key string
		_ = json.Unmarshal(e[0], &key)
		out = append(out, key+"="+string(e[1]))
	}
	return out
}

func newEntriesServer(t *testing.T) (*Engine, *peer) {
	t.Helper()
	s := newTestServerWith(t, Options{StateListEntries: true})
	return s, dial(t, s)
}

// listPage calls state::list_entries for scope with the given extra
// input fields and decodes the page.
func listPage(t *testing.T, p *peer, scope, cursor string, extra string) entriesPage {
	t.Helper()
	in := fmt.Sprintf(`{"scope":%q`, scope)
	if cursor != "" {
		in += fmt.Sprintf(`,"cursor":%q`, cursor)
	}
	if extra != "" {
		in += "," + extra
	}
	return decodePage(t, p.callOK("state::list_entries", in+"}"))
}

// The pages of a scope are its [key, value] entries in first-write order,
// limit at a time, each naming the rows before it and the total; the last
// has no cursor. The first page's bytes are the engine's canonical shape.
func TestListEntriesPagesAScopeInOrder(t *testing.T) {
	forEachBackend(t, Options{StateListEntries: true}, testListEntriesPagesAScopeInOrder)
}

func testListEntriesPagesAScopeInOrder(t *testing.T, _ stateBackend, s *Engine) {
	p := dial(t, s)
	for _, k := range []string{"e", "a", "d", "b", "c"} {
		p.callOK("state::set", fmt.Sprintf(`{"scope":"s","key":%q,"value":{"k":%q}}`, k, k))
	}
	p.callOK("state::set", `{"scope":"s","key":"a","value":{"k":"a2"}}`) // keeps its place

	raw := p.callOK("state::list_entries", `{"scope":"s","limit":2}`)
	first := decodePage(t, raw)
	wantRaw := fmt.Sprintf(`{"done":false,"entries":[["e",{"k":"e"}],["a",{"k":"a2"}]],"next_cursor":%q,"offset":0,"total":5}`, *first.NextCursor)
	if string(raw) != wantRaw {
		t.Errorf("first page\n got %s\nwant %s", raw, wantRaw)
	}
	second := listPage(t, p, "s", *first.NextCursor, `"limit":2`)
	third := listPage(t, p, "s", *second.NextCursor, `"limit":2`)
	got := []any{second.entries(), second.Offset, second.Done, third.entries(), third.Offset, third.Total, third.Done}
	want := []any{[]string{`d={"k":"d"}`, `b={"k":"b"}`}, 2, false, []string{`c={"k":"c"}`}, 4, 5, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages 2 and 3 (-want +got):\n%s", diff)
	}
	if n, _ := s.state.entries.openCount(); n != 0 {
		t.Errorf("%d snapshots open after the last page, want 0", n)
	}

	empty := p.callOK("state::list_entries", `{"scope":"nowhere"}`)
	if string(empty) != `{"done":true,"entries":[],"next_cursor":null,"offset":0,"total":0}` {
		t.Errorf("unknown scope = %s", empty)
	}
}

// Writes after the first page do not show in later pages: the pages are
// one snapshot, taken by the first.
func TestListEntriesSnapshotIsImmutable(t *testing.T) {
	forEachBackend(t, Options{StateListEntries: true}, testListEntriesSnapshotIsImmutable)
}

func testListEntriesSnapshotIsImmutable(t *testing.T, _ stateBackend, s *Engine) {
	p := dial(t, s)
	for _, k := range []string{"a", "b", "c", "d"} {
		p.callOK("state::set", fmt.Sprintf(`{"scope":"s","key":%q,"value":1}`, k))
	}
	first := listPage(t, p, "s", "", `"limit":2`)
	p.callOK("state::set", `{"scope":"s","key":"c","value":2}`)
	p.callOK("state::delete", `{"scope":"s","key":"d"}`)
	p.callOK("state::set", `{"scope":"s","key":"z","value":3}`)
	rest := listPage(t, p, "s", *first.NextCursor, `"limit":2`)
	if diff := cmp.Diff([]string{"c=1", "d=1"}, rest.entries()); diff != "" || !rest.Done || rest.Total != 4 {
		t.Errorf("second page after writes: done %v total %d (-want +got):\n%s", rest.Done, rest.Total, diff)
	}
	again := listPage(t, p, "s", "", `"limit":10`)
	if diff := cmp.Diff([]string{"a=1", "b=1", "c=2", "z=3"}, again.entries()); diff != "" {
		t.Errorf("a new listing (-want +got):\n%s", diff)
	}
}

// A page holds as many rows as fit in max_bytes with its envelope, never
// fewer than one, and never more bytes than max_bytes; the pages together
// are every row.
func TestListEntriesPagesFitMaxBytes(t *testing.T) {
	_, p := newEntriesServer(t)
	var want []string
	for i := range 40 {
		v := fmt.Sprintf(`"%s"`, strings.Repeat("x", 10+i*7))
		p.callOK("state::set", fmt.Sprintf(`{"scope":"s","key":"k%02d","value":%s}`, i, v))
		want = append(want, fmt.Sprintf("k%02d=%s", i, v))
	}
	var got []string
	cursor, pages := "", 0
	for {
		in := `{"scope":"s","limit":1000,"max_bytes":600`
		if cursor != "" {
			in += fmt.Sprintf(`,"cursor":%q`, cursor)
		}
		raw := p.callOK("state::list_entries", in+"}")
		if len(raw) > 600 {
			t.Fatalf("page of %d bytes over max_bytes 600: %s", len(raw), raw)
		}
		page := decodePage(t, raw)
		if len(page.Entries) == 0 {
			t.Fatalf("an empty page before the end: %s", raw)
		}
		got = append(got, page.entries()...)
		pages++
		if page.Done {
			break
		}
		cursor = *page.NextCursor
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows over every page (-want +got):\n%s", diff)
	}
	if pages < 5 {
		t.Errorf("%d pages, want the byte budget to split the listing", pages)
	}
}

// A cursor reads one page: used again it is refused. A cursor presented
// with another scope, limit, max_bytes or by another caller is refused,
// naming what differs, and stays good for its own caller.
func TestListEntriesCursorIsSingleUseAndBound(t *testing.T) {
	s, p := newEntriesServer(t)
	other := dial(t, s)
	for _, k := range []string{"a", "b", "c"} {
		p.callOK("state::set", fmt.Sprintf(`{"scope":"s","key":%q,"value":1}`, k))
	}
	first := listPage(t, p, "s", "", `"limit":1`)
	c := *first.NextCursor
	mismatches := []struct {
		name   string
		caller *peer
		in     string
		want   string
	}{
		{"scope", p, fmt.Sprintf(`{"scope":"t","cursor":%q,"limit":1}`, c), `was issued for scope "s" with limit 1 and max_bytes 1000000, not scope "t" with limit 1 and max_bytes 1000000`},
		{"limit", p, fmt.Sprintf(`{"scope":"s","cursor":%q}`, c), `not scope "s" with limit 100 and max_bytes 1000000`},
		{"max_bytes", p, fmt.Sprintf(`{"scope":"s","cursor":%q,"limit":1,"max_bytes":5000}`, c), `not scope "s" with limit 1 and max_bytes 5000`},
		{"caller", other, fmt.Sprintf(`{"scope":"s","cursor":%q,"limit":1}`, c), "was issued to another caller"},
	}
	for _, m := range mismatches {
		res := m.caller.call("state::list_entries", m.in)
		if res.Error == nil || res.Error.Code != codeInvalidCursor || !strings.Contains(res.Error.Message, m.want) {
			t.Errorf("%s mismatch: error %+v, want %s naming %q", m.name, res.Error, codeInvalidCursor, m.want)
		}
	}
	second := listPage(t, p, "s", c, `"limit":1`)
	if diff := cmp.Diff([]string{"b=1"}, second.entries()); diff != "" {
		t.Errorf("the cursor after refused mismatches (-want +got):\n%s", diff)
	}
	res := p.call("state::list_entries", fmt.Sprintf(`{"scope":"s","cursor":%q,"limit":1}`, c))
	want := &wire.ErrorBody{Code: codeInvalidCursor, Message: fmt.Sprintf(
		`state::list_entries: cursor %q is not valid: it is unknown, was already used (each cursor reads one page), or its snapshot expired (1m0s after its last page); list again without a cursor`, c)}
	if diff := cmp.Diff(want, res.Error); diff != "" {
		t.Errorf("a cursor used twice (-want +got):\n%s", diff)
	}
}

// Inputs out of range are refused with the value and the range; nothing
// is opened.
func TestListEntriesRefusesInputsOutOfRange(t *testing.T) {
	s, p := newEntriesServer(t)
	p.callOK("state::set", `{"scope":"s","key":"a","value":1}`)
	cases := []struct{ in, code, msg string }{
		{`{"scope":"s","limit":0}`, codeInvalidArgument, "state::list_entries: limit 0 is out of range; it must be an integer between 1 and 1000 (default 100)"},
		{`{"scope":"s","limit":1001}`, codeInvalidArgument, "state::list_entries: limit 1001 is out of range; it must be an integer between 1 and 1000 (default 100)"},
		{`{"scope":"s","limit":-1}`, codeInvalidArgument, "state::list_entries: limit -1 is out of range; it must be an integer between 1 and 1000 (default 100)"},
		{`{"scope":"s","limit":2.5}`, codeInvalidArgument, "state::list_entries: limit 2.5 is out of range; it must be an integer between 1 and 1000 (default 100)"},
		{`{"scope":"s","limit":"10"}`, codeInvalidArgument, `state::list_entries: limit "10" is out of range; it must be an integer between 1 and 1000 (default 100)`},
		{`{"scope":"s","max_bytes":255}`, codeInvalidArgument, "state::list_entries: max_bytes 255 is out of range; it must be an integer between 256 and 8000000 (default 1000000)"},
		{`{"scope":"s","max_bytes":8000001}`, codeInvalidArgument, "state::list_entries: max_bytes 8000001 is out of range; it must be an integer between 256 and 8000000 (default 1000000)"},
		{`{"scope":"s","cursor":"` + strings.Repeat("c", 37) + `"}`, codeInvalidArgument, "state::list_entries: cursor is 37 characters long; a cursor is at most 36 (pass next_cursor back as it was given)"},
		{`{"limit":1}`, "deserialization_error", "Failed to deserialize input for state::list_entries: missing field `scope`"},
	}
	for _, c := range cases {
		res := p.call("state::list_entries", c.in)
		if diff := cmp.Diff(&wire.ErrorBody{Code: c.code, Message: c.msg}, res.Error); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.in, diff)
		}
	}
	// null reads as absent: the defaults.
	if page := listPage(t, p, "s", "", `"limit":null,"max_bytes":null`); !page.Done || len(page.Entries) != 1 {
		t.Errorf("null limits: %+v", page)
	}
	if n, _ := s.state.entries.openCount(); n != 0 {
		t.Errorf("%d snapshots open after refused inputs, want 0", n)
	}
}

// A scope over a snapshot's bounds is refused as a whole, naming its size
// and the bounds; a row no page can carry is refused, never skipped.
func TestListEntriesCaps(t *testing.T) {
	s, p := newEntriesServer(t)
	for i := range snapshotMaxRows + 1 {
		s.state.set("rows", fmt.Sprintf("k%d", i), json.RawMessage(`1`))
	}
	big := json.RawMessage(`"` + strings.Repeat("b", 1<<20) + `"`)
	for i := range 33 {
		s.state.set("bytes", fmt.Sprintf("k%d", i), big)
	}
	s.state.set("row", "small", json.RawMessage(`1`))
	s.state.set("row", "large", json.RawMessage(`"`+strings.Repeat("r", 2000)+`"`))
	cases := []struct{ in, code, msg string }{
		{`{"scope":"rows"}`, codeSnapshotTooLarge, `state::list_entries: scope "rows" has 100001 rows; a snapshot holds at most 100000 rows and 33554432 bytes (read the scope with state::list)`},
		{`{"scope":"bytes","max_bytes":8000000}`, codeSnapshotTooLarge, `state::list_entries: scope "bytes" has 33 rows in 34603328 bytes; a snapshot holds at most 100000 rows and 33554432 bytes (read the scope with state::list)`},
		{`{"scope":"row","max_bytes":1000}`, codeRowTooLarge, `state::list_entries: the row at key "large" of scope "row" takes 2012 bytes in a page, and a page of max_bytes 1000 has room for 899; raise max_bytes (at most 8000000) or read the key with state::get`},
	}
	for _, c := range cases {
		res := p.call("state::list_entries", c.in)
		if diff := cmp.Diff(&wire.ErrorBody{Code: c.code, Message: c.msg}, res.Error); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.in, diff)
		}
	}
	// Exactly at the row bound is fine.
	s.state.remove("rows", "k0")
	if page := listPage(t, p, "rows", "", `"limit":1000`); page.Total != snapshotMaxRows {
		t.Errorf("a scope of exactly %d rows: total %d", snapshotMaxRows, page.Total)
	}
}

// Snapshots are owned by the engine: one unused for snapshotTTL is
// dropped (its cursor refused), and at most maxOpenSnapshots are open,
// the least recently used dropped first. On a fake clock, so the
// expiry is exact.
func TestListEntriesSnapshotsExpireAndAreBounded(t *testing.T) {
	s := newTestServerWith(t, Options{StateListEntries: true})
	now := time.Unix(1_000_000, 0)
	s.state.entries.now = func() time.Time { return now }
	for _, k := range []string{"a", "b"} {
		s.state.set("s", k, json.RawMessage(`1`))
	}
	first := func() string {
		raw, e := stateListEntries(s, DefaultNamespace, json.RawMessage(`{"scope":"s","limit":1}`))
		if e != nil {
			t.Fatal(e)
		}
		return *decodePage(t, raw).NextCursor
	}
	next := func(c string) *wire.ErrorBody {
		_, e := stateListEntries(s, DefaultNamespace, json.RawMessage(fmt.Sprintf(`{"scope":"s","limit":1,"cursor":%q}`, c)))
		return e
	}

	kept, expired := first(), first()
	now = now.Add(snapshotTTL - time.Second)
	if e := next(kept); e != nil {
		t.Errorf("a cursor used within the TTL: %+v", e)
	}
	now = now.Add(time.Second)
	if e := next(expired); e == nil || e.Code != codeInvalidCursor {
		t.Errorf("a cursor unused for the TTL: %+v, want %s", e, codeInvalidCursor)
	}
	if n, b := s.state.entries.openCount(); n != 0 || b != 0 {
		t.Errorf("open after expiry: %d snapshots, %d bytes; want none", n, b)
	}

	cursors := make([]string, 0, maxOpenSnapshots+1)
	for range maxOpenSnapshots + 1 {
		now = now.Add(time.Millisecond)
		cursors = append(cursors, first())
	}
	if n, b := s.state.entries.openCount(); n != maxOpenSnapshots || b != int64(maxOpenSnapshots*2*len(`["a",1]`)) {
		t.Errorf("open: %d snapshots, %d bytes; want %d of 2 rows each", n, b, maxOpenSnapshots)
	}
	if e := next(cursors[0]); e == nil || e.Code != codeInvalidCursor {
		t.Errorf("the least recently used snapshot past the bound: %+v, want it dropped", e)
	}
	if e := next(cursors[1]); e != nil {
		t.Errorf("the next one: %+v, want it kept", e)
	}
}

// Without Options.StateListEntries the engine is 0.22.1's: no
// state::list_entries.
func TestListEntriesIsOptional(t *testing.T) {
	s := newTestServer(t)
	p := dial(t, s)
	res := p.call("state::list_entries", `{"scope":"s"}`)
	if res.Error == nil || res.Error.Code != "function_not_found" {
		t.Errorf("state::list_entries on a default engine: %+v, want function_not_found", res.Error)
	}
}
