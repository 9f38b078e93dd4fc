package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// countingEngine is the worker's client seen through a counter of the
// calls the catalog makes; before, when set, runs before the nth call of
// a function (n from 1) and, returning an error, answers it instead.
type countingEngine struct {
	*iii.Client
	before func(fn string, n int) error

	mu    sync.Mutex
	calls map[string]int
}

func countCalls(before func(fn string, n int) error) (*countingEngine, func(*iii.Client) Engine) {
	e := &countingEngine{before: before, calls: map[string]int{}}
	return e, func(c *iii.Client) Engine { e.Client = c; return e }
}

func (e *countingEngine) count(fn string) error {
	e.mu.Lock()
	e.calls[fn]++
	n := e.calls[fn]
	e.mu.Unlock()
	if e.before != nil {
		return e.before(fn, n)
	}
	return nil
}

func (e *countingEngine) Call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	if err := e.count(fn); err != nil {
		return nil, err
	}
	return e.Client.Call(ctx, fn, data)
}

func (e *countingEngine) CallEach(ctx context.Context, fn string, data any, each func(json.RawMessage)) error {
	if err := e.count(fn); err != nil {
		return err
	}
	return e.Client.CallEach(ctx, fn, data, each)
}

func (e *countingEngine) callsTo(fn string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[fn]
}

func notFound(fn string) error {
	return &iii.Error{Code: iii.CodeFunctionNotFound, Message: fmt.Sprintf("Function %s not found", fn)}
}

// hideListEntries makes an engine without state::list_entries.
func hideListEntries(fn string, _ int) error {
	if fn == "state::list_entries" {
		return notFound(fn)
	}
	return nil
}

// dumpScope renders everything a reader can get from the scope: its
// validity, whether a miss is authoritative, and each key's entry.
func dumpScope(s *Scope) []string {
	s.mu.Lock()
	keys := slices.Sorted(maps.Keys(s.entries))
	head := fmt.Sprintf("valid=%v unkeyed=%v", s.valid, s.unkeyed)
	s.mu.Unlock()
	out := []string{head}
	for _, k := range keys {
		e, found, auth := s.Get(k)
		out = append(out, fmt.Sprintf("%s: found=%v auth=%v summary=%v body=%q hasBody=%v err=%v", k, found, auth, e.Summary, e.Body, e.HasBody, e.Err))
	}
	return out
}

// seedRows writes rows of every kind a load meets: good rows of varied
// sizes, a row that does not decode, one without a key, one whose id
// differs from its state key.
func seedRows(srv *engine.Engine) {
	for i := range 15 {
		id := fmt.Sprintf("k%02d", (i*7)%15) // not written in key order
		_ = srv.SetState("skills", id, row(id, strings.Repeat("body ", 1+i*3)))
	}
	_ = srv.SetState("skills", "bad", json.RawMessage(`{"id":"bad","skill":42}`))
	_ = srv.SetState("skills", "nokey", json.RawMessage(`{"skill":"no id"}`))
	_ = srv.SetState("skills", "mismatch", row("other", "keyed by its id"))
}

// seededBodies is the length of the bodies seedRows writes that decode.
var seededBodies = func() int64 {
	var n int64
	for i := range 15 {
		n += int64(len(strings.Repeat("body ", 1+i*3)))
	}
	return n + int64(len("keyed by its id"))
}()

// smallPages makes the catalog read its scope in pages of at most 3 rows
// and 600 bytes.
func smallPages(c *Catalog) { c.pageLimit, c.pageBytes = 3, 600 }

// A paged load of a scope (several pages, small ones) builds exactly the
// scope a state::list load of the same data builds: the same entries,
// summaries, bodies, errors, and the same notion of a row without a key.
func TestPagedLoadBuildsTheScopeOfStateList(t *testing.T) {
	paged, wrapPaged := countCalls(nil)
	r := newRigWith(t, engine.Options{StateListEntries: true}, rigSetup{seed: seedRows, wrap: wrapPaged, configure: smallPages})
	r.until(t, "loaded in pages", r.scope.Valid)

	listed, wrapListed := countCalls(hideListEntries)
	ref := startCatalog(t, r.srv, rigSetup{wrap: wrapListed})
	ref.until(t, "loaded with state::list", ref.scope.Valid)

	if diff := cmp.Diff(dumpScope(ref.scope), dumpScope(r.scope)); diff != "" {
		t.Errorf("paged load (-state::list +pages):\n%s", diff)
	}
	if n := paged.callsTo("state::list_entries"); n < 5 || paged.callsTo("state::list") != 0 {
		t.Errorf("paged catalog: %d state::list_entries and %d state::list calls; want several pages and no list", n, paged.callsTo("state::list"))
	}
	if listed.callsTo("state::list") != 1 {
		t.Errorf("reference catalog: %d state::list calls, want 1", listed.callsTo("state::list"))
	}
}

// Writes between pages (an overwrite of a row already read, of a row not
// yet read, a delete, a new key) do not show in the snapshot's later
// pages, and the load reads their keys again afterwards: the scope ends as
// a state::list load of the data after the writes builds it.
func TestPagedLoadWithWritesBetweenPages(t *testing.T) {
	var srv *engine.Engine
	var once sync.Once
	paged, wrap := countCalls(func(fn string, n int) error {
		if fn == "state::list_entries" && n == 2 {
			once.Do(func() {
				_ = srv.SetState("skills", "k00", row("k00", "overwritten after its page"))
				_ = srv.SetState("skills", "k14", row("k14", "overwritten before its page"))
				srv.DeleteState("skills", "k03")
				_ = srv.SetState("skills", "new", row("new", "added between pages"))
			})
		}
		return nil
	})
	r := newRigWith(t, engine.Options{StateListEntries: true}, rigSetup{
		seed: func(e *engine.Engine) { srv = e; seedRows(e) }, wrap: wrap, configure: smallPages})
	r.until(t, "loaded in pages", r.scope.Valid)
	if paged.callsTo("state::list_entries") < 3 {
		t.Fatalf("%d pages; the writes must fall between pages", paged.callsTo("state::list_entries"))
	}

	_, wrapListed := countCalls(hideListEntries)
	ref := startCatalog(t, r.srv, rigSetup{wrap: wrapListed})
	ref.until(t, "loaded with state::list", ref.scope.Valid)
	want := dumpScope(ref.scope)
	for _, line := range []string{"overwritten after its page", "overwritten before its page", "added between pages"} {
		if !slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, line) }) {
			t.Fatalf("the reference scope lacks %q: %q", line, want)
		}
	}
	r.until(t, "converged on the data after the writes", func() bool { return cmp.Equal(want, dumpScope(r.scope)) })
}

// An engine without state::list_entries (0.22.1) is asked for it once per
// connection; every load is one state::list, as before.
func TestPagedLoadFallsBackWithoutListEntries(t *testing.T) {
	eng, wrap := countCalls(nil)
	r := newRigWith(t, engine.Options{}, rigSetup{seed: seedRows, wrap: wrap})
	r.until(t, "loaded", r.scope.Valid)
	if got := []int{eng.callsTo("state::list_entries"), eng.callsTo("state::list")}; !slices.Equal(got, []int{1, 1}) {
		t.Errorf("first connection: [list_entries list] calls %v, want [1 1]", got)
	}
	r.scope.Invalidate() // a reload on the same connection
	r.until(t, "reloaded", r.scope.Valid)
	if got := []int{eng.callsTo("state::list_entries"), eng.callsTo("state::list")}; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("reload on one connection: [list_entries list] calls %v, want [1 2]", got)
	}
	r.srv.DropConnections()
	if err := r.srv.SetState("skills", "while-away", row("while-away", "missed event")); err != nil {
		t.Fatal(err)
	}
	r.until(t, "reloaded after the reconnect", func() bool { b, ok := r.body("while-away"); return ok && b == "missed event" })
	if got := []int{eng.callsTo("state::list_entries"), eng.callsTo("state::list")}; !slices.Equal(got, []int{2, 3}) {
		t.Errorf("after a reconnect: [list_entries list] calls %v, want [2 3]", got)
	}
}

// A paged listing the engine cannot finish (a row over the page budget, a
// scope over the snapshot bounds, a cursor refused half-way) never leaves
// part of the scope: the scope is loaded whole with state::list, and the
// reason is logged. The body budget is exactly the seeded bodies, so
// bodies read from pages before the fallback must not count against it.
func TestPagedLoadFallsBackWhenTheEngineCannotPageTheScope(t *testing.T) {
	cases := []struct {
		name      string
		before    func(fn string, n int) error
		configure func(*Catalog)
		code      string
	}{
		{"a row over max_bytes", nil, func(c *Catalog) { c.pageLimit, c.pageBytes = 3, 256 }, "row_too_large"},
		{"a scope over the snapshot bounds", func(fn string, n int) error {
			if fn == "state::list_entries" {
				return &iii.Error{Code: "snapshot_too_large", Message: "too many rows"}
			}
			return nil
		}, smallPages, "snapshot_too_large"},
		{"a cursor refused half-way", func(fn string, n int) error {
			if fn == "state::list_entries" && n == 3 {
				return &iii.Error{Code: "invalid_cursor", Message: "expired"}
			}
			return nil
		}, smallPages, "invalid_cursor"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eng, wrap := countCalls(tc.before)
			r := newRigWith(t, engine.Options{StateListEntries: true}, rigSetup{seed: seedRows, wrap: wrap, configure: tc.configure, budget: seededBodies})
			r.until(t, "loaded", r.scope.Valid)
			_, wrapListed := countCalls(hideListEntries)
			ref := startCatalog(t, r.srv, rigSetup{wrap: wrapListed, budget: seededBodies})
			ref.until(t, "loaded with state::list", ref.scope.Valid)
			if diff := cmp.Diff(dumpScope(ref.scope), dumpScope(r.scope)); diff != "" {
				t.Errorf("scope (-state::list +after the fallback):\n%s", diff)
			}
			if eng.callsTo("state::list") != 1 {
				t.Errorf("%d state::list calls, want 1", eng.callsTo("state::list"))
			}
			logged := r.logs.FilterMessageSnippet("the paged listing cannot give this scope whole").All()
			if len(logged) != 1 || !strings.Contains(logged[0].ContextMap()["error"].(string), tc.code) {
				t.Errorf("logs %+v, want one naming %s", logged, tc.code)
			}
		})
	}
}

// pagesEngine answers state::list_entries with canned pages, one per call.
type pagesEngine struct {
	flakyEngine
	pages  []string
	inputs []string
}

func (e *pagesEngine) Call(_ context.Context, fn string, data any) (json.RawMessage, error) {
	in, _ := json.Marshal(data)
	e.inputs = append(e.inputs, string(in))
	if fn != "state::list_entries" || len(e.pages) == 0 {
		return nil, notFound(fn)
	}
	p := e.pages[0]
	e.pages = e.pages[1:]
	return json.RawMessage(p), nil
}

// Pages are read in order, repeating the limits with each cursor; pages
// that do not follow one another are refused, never taken in part.
func TestListPagesChecksEveryPage(t *testing.T) {
	good := []string{
		`{"done":false,"entries":[["a",1],["b",{"x":[1,2]}]],"next_cursor":"c1","offset":0,"total":3}`,
		`{"done":true,"entries":[["c","three"]],"next_cursor":null,"offset":2,"total":3}`,
	}
	eng := &pagesEngine{pages: good}
	c := &Catalog{engine: eng, timeout: waitTimeout, pageLimit: 2, pageBytes: 1000}
	var got []string
	if err := c.listPages(context.Background(), "s", func(v json.RawMessage) { got = append(got, string(v)) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`1`, `{"x":[1,2]}`, `"three"`}, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	wantIn := []string{`{"limit":2,"max_bytes":1000,"scope":"s"}`, `{"cursor":"c1","limit":2,"max_bytes":1000,"scope":"s"}`}
	if diff := cmp.Diff(wantIn, eng.inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}

	bad := []struct {
		name  string
		pages []string
		want  string
	}{
		{"not an object", []string{`[]`}, "not an object"},
		{"done with a cursor", []string{`{"done":true,"entries":[],"next_cursor":"c","offset":0,"total":0}`}, "done true and next_cursor"},
		{"no cursor before the end", []string{`{"done":false,"entries":[["a",1]],"next_cursor":null,"offset":0,"total":2}`}, "done false and next_cursor null"},
		{"an entry that is not a pair", []string{`{"done":true,"entries":[[1]],"next_cursor":null,"offset":0,"total":1}`}, "entry 0 is not a [key, value] pair"},
		{"a key that is not a string", []string{`{"done":true,"entries":[[1,2]],"next_cursor":null,"offset":0,"total":1}`}, "entry 0 has a key that is not a string"},
		{"a skipped row", []string{good[0], `{"done":true,"entries":[["c",3]],"next_cursor":null,"offset":3,"total":3}`}, "offset 3 after 2 rows"},
		{"a total that changes", []string{good[0], `{"done":true,"entries":[["c",3]],"next_cursor":null,"offset":2,"total":4}`}, "total 4 after one said 3"},
		{"done short of the total", []string{`{"done":true,"entries":[["a",1]],"next_cursor":null,"offset":0,"total":2}`}, "done after 1 rows of 2"},
		{"an empty page before the end", []string{`{"done":false,"entries":[],"next_cursor":"c","offset":0,"total":2}`}, "an empty page before the end"},
		{"a negative count", []string{`{"done":true,"entries":[],"next_cursor":null,"offset":-1,"total":0}`}, "offset is not a count"},
	}
	for _, b := range bad {
		c := &Catalog{engine: &pagesEngine{pages: b.pages}, timeout: waitTimeout, pageLimit: 2, pageBytes: 1000}
		err := c.listPages(context.Background(), "s", func(json.RawMessage) {})
		var refused *pagesRefused
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v, want a refusal naming %q", b.name, err, b.want)
		}
	}
}
