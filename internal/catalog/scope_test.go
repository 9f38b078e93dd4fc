package catalog

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// testRow is a stored value for these tests: {"id", "skill"}.
func row(id, body string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"id": id, "skill": body})
	return b
}

// decodeRow keeps the id as the summary and the skill as the body; a
// non-string skill is an error.
func decodeRow(raw json.RawMessage) (Decoded, bool) {
	var r struct {
		ID    string `json:"id"`
		Skill any    `json:"skill"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ID == "" {
		return Decoded{}, false
	}
	body, ok := r.Skill.(string)
	if !ok {
		return Decoded{Key: r.ID, Err: errors.New("skill is not a string")}, true
	}
	return Decoded{Key: r.ID, Summary: r.ID, Body: body}, true
}

func newTestScope(budget int64) *Scope { return NewScope("skills", decodeRow, budget) }

func summaries(t *testing.T, s *Scope) []string {
	t.Helper()
	vs, ok := s.Summaries()
	if !ok {
		t.Fatal("scope not valid")
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.(string)
	}
	return out
}

func load(s *Scope, values ...json.RawMessage) []string {
	s.BeginLoad()
	return s.EndLoad(values)
}

// The mirror lists its entries sorted by key (the order every listing
// serves), whatever order the engine listed them in and however they
// came and went since: first write, an overwrite in place, a delete, a
// key written again.
func TestScopeListsByKey(t *testing.T) {
	s := newTestScope(1 << 20)
	load(s, row("b", "1"), row("a", "1"))
	s.Put("c", row("c", "1"))
	s.Put("b", row("b", "2"))
	s.Delete("a")
	s.Put("a", row("a", "3"))
	if diff := cmp.Diff([]string{"a", "b", "c"}, summaries(t, s)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if e, found, _ := s.Get("b"); !found || !e.HasBody || e.Body != "2" {
		t.Errorf("b = %+v, want the overwritten body", e)
	}
}

// After any sequence of loads, writes and deletes the listing is the
// entries that decode, sorted by key: checked against the keys a plain
// map holds.
func TestScopeListingMatchesARebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := newTestScope(1 << 20)
	load(s)
	want := map[string]bool{} // key -> decodes
	for step := range 2000 {
		key := string(rune('a' + rng.IntN(26)))
		switch op := rng.IntN(10); {
		case op < 5:
			s.Put(key, row(key, "x"))
			want[key] = true
		case op < 6:
			s.Put(key, json.RawMessage(`{"id":"`+key+`","skill":7}`)) // does not decode
			want[key] = false
		case op < 9:
			s.Delete(key)
			delete(want, key)
		default:
			var values []json.RawMessage
			want = map[string]bool{}
			for range rng.IntN(8) {
				k := string(rune('a' + rng.IntN(26)))
				values = append(values, row(k, "y"))
				want[k] = true
			}
			load(s, values...)
		}
		var keys []string
		for k, ok := range want {
			if ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		if diff := cmp.Diff(keys, summaries(t, s), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d: listing (-rebuilt +scope):\n%s", step, diff)
		}
	}
}

// Before a load, after Invalidate, the mirror vouches for nothing; after a
// load a miss is proof of absence unless a loaded value had no key.
func TestScopeAuthority(t *testing.T) {
	s := newTestScope(1 << 20)
	if _, _, auth := s.Get("a"); auth {
		t.Error("an unloaded scope answered with authority")
	}
	if _, ok := s.Summaries(); ok {
		t.Error("an unloaded scope listed summaries")
	}
	load(s, row("a", "1"))
	if e, found, auth := s.Get("a"); !found || !auth || e.Body != "1" {
		t.Errorf("Get(a) = %+v %v %v", e, found, auth)
	}
	if _, found, auth := s.Get("zz"); found || !auth {
		t.Errorf("Get(zz) found=%v authoritative=%v, want a trusted miss", found, auth)
	}
	s.Invalidate()
	if _, _, auth := s.Get("a"); auth {
		t.Error("an invalidated scope answered with authority")
	}
	// A value without an id (another writer's row) cannot be placed: a miss
	// may be that row, so it is not trusted.
	load(s, row("a", "1"), json.RawMessage(`{"no":"id"}`))
	if _, found, auth := s.Get("zz"); found || auth {
		t.Errorf("Get(zz) with an unkeyed value: found=%v authoritative=%v, want untrusted", found, auth)
	}
}

// A row that does not decode keeps its error for reads and is left out of
// listings, as a read or listing from the engine would treat it.
func TestScopeKeepsDecodeErrors(t *testing.T) {
	s := newTestScope(1 << 20)
	load(s, row("ok", "1"), json.RawMessage(`{"id":"broken","skill":42}`))
	if e, found, auth := s.Get("broken"); !found || !auth || e.Err == nil {
		t.Errorf("Get(broken) = %+v found=%v auth=%v, want its decode error", e, found, auth)
	}
	if diff := cmp.Diff([]string{"ok"}, summaries(t, s)); diff != "" {
		t.Errorf("summaries (-want +got):\n%s", diff)
	}
}

// Bodies are kept within the budget, the least recently read evicted
// first; an evicted entry is still listed, and a read of it is a miss that
// CacheBody refills.
func TestScopeBodyBudget(t *testing.T) {
	s := newTestScope(10)
	load(s, row("a", "aaaa"), row("b", "bbbb"))
	s.Get("a") // a is now the most recently read
	s.Put("c", row("c", "cccc"))
	if e, _, _ := s.Get("b"); e.HasBody {
		t.Error("b should have been evicted: it was read least recently")
	}
	for _, key := range []string{"a", "c"} {
		if e, _, _ := s.Get(key); !e.HasBody {
			t.Errorf("%s lost its body", key)
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, summaries(t, s)); diff != "" {
		t.Errorf("an evicted entry left the listing (-want +got):\n%s", diff)
	}
	s.Put("big", row("big", "this body is over the budget"))
	if e, found, _ := s.Get("big"); !found || e.HasBody {
		t.Errorf("big = %+v found=%v: a body over the budget must not be kept", e, found)
	}
	e, _, _ := s.Get("b")
	s.CacheBody("b", "bbbb", e.Gen)
	if e, _, _ := s.Get("b"); !e.HasBody || e.Body != "bbbb" {
		t.Errorf("CacheBody did not refill b: %+v", e)
	}
	used, budget, hits, misses := s.Stats()
	if used > budget || hits == 0 || misses == 0 {
		t.Errorf("stats used=%d budget=%d hits=%d misses=%d", used, budget, hits, misses)
	}
	zero := newTestScope(0)
	load(zero, row("a", "x"))
	if e, found, _ := zero.Get("a"); !found || e.HasBody {
		t.Errorf("a zero budget kept a body: %+v", e)
	}
}

// A change that lands while a load is in flight survives the load's older
// snapshot, and its key is reported for reading again.
func TestScopeChangesDuringALoadWin(t *testing.T) {
	s := newTestScope(1 << 20)
	s.BeginLoad()
	s.Put("a", row("a", "new"))
	s.Delete("b")
	reread := s.EndLoad([]json.RawMessage{row("a", "old"), row("b", "old"), row("c", "old")})
	if e, _, _ := s.Get("a"); e.Body != "new" {
		t.Errorf("a = %q, want the change made during the load", e.Body)
	}
	if _, found, auth := s.Get("b"); found || !auth {
		t.Errorf("b found=%v: the delete made during the load was lost", found)
	}
	slices.Sort(reread)
	if diff := cmp.Diff([]string{"a", "b"}, reread); diff != "" {
		t.Errorf("keys to read again (-want +got):\n%s", diff)
	}
}

func TestScopeChangedWakesWaiters(t *testing.T) {
	s := newTestScope(1 << 20)
	ch, v := s.Changed(), s.Version()
	s.Put("a", row("a", "1"))
	select {
	case <-ch:
	default:
		t.Fatal("Changed was not closed by a Put")
	}
	if s.Version() == v {
		t.Error("Version did not change")
	}
}

// A body fetched from the engine for an older generation of an entry is
// not cached over a newer value that arrived meanwhile.
func TestScopeCacheBodyIgnoresAnOlderGeneration(t *testing.T) {
	s := newTestScope(0) // no bodies kept on Put: reads must fetch them
	load(s, row("x", "v1"))
	e, _, _ := s.Get("x")
	s.budget = 1 << 20 // from now on bodies fit
	s.Put("x", row("x", "v2"))
	s.CacheBody("x", "v1", e.Gen) // the slow reader's old body
	if got, _, _ := s.Get("x"); got.Body != "v2" {
		t.Errorf("body = %q, want the newer v2", got.Body)
	}
}

// A value whose id differs from its state key cannot be mirrored as a load
// would key it: the scope stops vouching and asks to be loaded again.
func TestScopeRowUnderAnotherKeyInvalidates(t *testing.T) {
	s := newTestScope(1 << 20)
	asked := 0
	s.onInvalid = func() { asked++ }
	load(s, row("a", "1"))
	s.Put("a", row("b", "1"))
	if s.Valid() || asked != 1 {
		t.Errorf("valid=%v reloads asked=%d, want invalid and one reload asked", s.Valid(), asked)
	}
}

// A re-read answered after a newer change does not overwrite it.
func TestScopeApplyIfUnchangedKeepsNewerChanges(t *testing.T) {
	s := newTestScope(1 << 20)
	load(s, row("a", "1"))
	gen := s.Gen("a")
	s.Put("a", row("a", "2")) // an own write lands while the re-read is in flight
	s.ApplyIfUnchanged("a", row("a", "1"), gen)
	if e, _, _ := s.Get("a"); e.Body != "2" {
		t.Errorf("a = %q, want the newer 2", e.Body)
	}
	s.ApplyIfUnchanged("a", nil, gen) // nor does a stale "gone"
	if _, found, _ := s.Get("a"); !found {
		t.Error("a stale re-read deleted a newer value")
	}
	s.ApplyIfUnchanged("a", row("a", "3"), s.Gen("a"))
	if e, _, _ := s.Get("a"); e.Body != "3" {
		t.Errorf("a = %q, want 3 from a re-read that saw no change", e.Body)
	}
	s.ApplyIfUnchanged("new", row("new", "x"), 0)
	if _, found, _ := s.Get("new"); !found {
		t.Error("a re-read of an absent key did not add it")
	}
}

// A re-read value that does not decode is not applied: the entry keeps
// its last good value, an absent key stays absent, and the error is
// returned for the caller to report.
func TestScopeApplyIfUnchangedKeepsTheEntryForARowThatDoesNotDecode(t *testing.T) {
	s := newTestScope(1 << 20)
	load(s, row("a", "good"))
	bad := json.RawMessage(`{"id":"a","skill":42}`)
	if err := s.ApplyIfUnchanged("a", bad, s.Gen("a")); err == nil {
		t.Error("no error for a row that does not decode")
	}
	if e, found, _ := s.Get("a"); !found || e.Err != nil || e.Body != "good" {
		t.Errorf("a = %+v (found %v), want the last good body", e, found)
	}
	if err := s.ApplyIfUnchanged("b", json.RawMessage(`{"id":"b","skill":[]}`), 0); err == nil {
		t.Error("no error for a new key whose row does not decode")
	}
	if _, found, _ := s.Get("b"); found {
		t.Error("a new key whose row does not decode was added")
	}
}

// A change reported while a load is in flight is read again when the load
// ends, even if nothing was put meanwhile (its event arrived first).
func TestScopeDeferredKeysAreReadAfterTheLoad(t *testing.T) {
	s := newTestScope(1 << 20)
	if s.Defer("a") {
		t.Error("Defer outside a load deferred")
	}
	s.BeginLoad()
	if !s.Defer("a") {
		t.Fatal("Defer during a load did not defer")
	}
	reread := s.EndLoad([]json.RawMessage{row("a", "old")}) // a snapshot that may predate the write
	if !slices.Contains(reread, "a") {
		t.Errorf("keys to read again = %v, want a", reread)
	}
	// Until the re-read, the snapshot's value serves: the key is not
	// reported missing.
	if e, found, _ := s.Get("a"); !found || e.Body != "old" {
		t.Errorf("a = %+v found=%v, want the snapshot's value until the re-read", e, found)
	}
}

// A scope whose connection ended vouches for nothing until the next load,
// and a load in flight when it ended does not vouch for its snapshot
// either (the events after it were lost with the connection).
func TestScopeOrphanedByTheConnectionVouchesForNothing(t *testing.T) {
	s := newTestScope(1 << 20)
	load(s, row("a", "1"))
	v := s.Version()
	s.Orphan()
	if _, _, auth := s.Get("a"); auth || s.Valid() {
		t.Error("an orphaned scope still vouches for its entries")
	}
	if s.Version() == v {
		t.Error("orphaning did not change the version, so renders derived from the scope would be reused")
	}
	s.BeginLoad()
	s.Orphan() // the connection ends while the next load is in flight
	s.EndLoad([]json.RawMessage{row("a", "2")})
	if s.Valid() {
		t.Error("a load whose connection ended marked the scope valid")
	}
	load(s, row("a", "3"))
	if e, found, auth := s.Get("a"); !found || !auth || e.Body != "3" {
		t.Errorf("after a full load: %+v found=%v auth=%v, want body 3, vouched for", e, found, auth)
	}
}

// A value the scope cannot mirror (its id is not its key) written while a
// load is in flight invalidates the load: the scope stays invalid, so reads
// go to the engine, and another load is asked for. It was a no-op then
// (the scope is invalid while it loads), and the load vouched for the
// snapshot without the value.
func TestInvalidatedDuringALoadLoadsAgain(t *testing.T) {
	s := NewSkillsScope("skills", 1<<20)
	asked := 0
	s.onInvalid = func() { asked++ }
	s.BeginLoad()
	s.Put("a", row("b", "body of b under key a"))
	if asked != 0 {
		t.Fatalf("a reload was asked for during the load (%d); want it once the load ends", asked)
	}
	s.EndLoad([]json.RawMessage{row("c", "c")})
	if s.Valid() || asked != 1 {
		t.Errorf("after the load: valid %t, reloads asked %d; want invalid and one asked", s.Valid(), asked)
	}
	s.BeginLoad()
	s.EndLoad([]json.RawMessage{row("c", "c")})
	if !s.Valid() || asked != 1 {
		t.Errorf("after a clean load: valid %t, reloads asked %d; want valid, none more", s.Valid(), asked)
	}
}
