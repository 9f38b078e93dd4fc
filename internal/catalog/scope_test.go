package catalog

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func row(id, body string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"id": id, "skill": body})
	return b
}

func values(t *testing.T, s *Scope) []string {
	t.Helper()
	vs, ok := s.Values()
	if !ok {
		t.Fatal("scope not valid")
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// The mirror keeps the engine's state::list order: first write, an
// overwrite in place, a delete removed.
func TestScopeKeepsTheEngineOrder(t *testing.T) {
	s := NewScope("skills", KeyField("id"))
	s.BeginLoad()
	s.EndLoad([]json.RawMessage{row("b", "1"), row("a", "1")})
	s.Put("c", row("c", "1"))
	s.Put("b", row("b", "2"))
	s.Delete("a")
	s.Put("a", row("a", "3"))
	want := []string{string(row("b", "2")), string(row("c", "1")), string(row("a", "3"))}
	if diff := cmp.Diff(want, values(t, s)); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
}

// Before a load, after Invalidate, the mirror vouches for nothing; after a
// load a miss is proof of absence unless a loaded value had no key.
func TestScopeAuthority(t *testing.T) {
	s := NewScope("skills", KeyField("id"))
	if _, _, auth := s.Get("a"); auth {
		t.Error("an unloaded scope answered with authority")
	}
	if _, ok := s.Values(); ok {
		t.Error("an unloaded scope listed values")
	}
	s.BeginLoad()
	s.EndLoad([]json.RawMessage{row("a", "1")})
	if v, found, auth := s.Get("a"); !found || !auth || string(v) != string(row("a", "1")) {
		t.Errorf("Get(a) = %s %v %v", v, found, auth)
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
	s.BeginLoad()
	s.EndLoad([]json.RawMessage{row("a", "1"), json.RawMessage(`{"no":"id"}`)})
	if _, found, auth := s.Get("zz"); found || auth {
		t.Errorf("Get(zz) with an unkeyed value: found=%v authoritative=%v, want untrusted", found, auth)
	}
}

// A change that lands while a load is in flight survives the load's older
// snapshot, and its key is reported for reading again.
func TestScopeChangesDuringALoadWin(t *testing.T) {
	s := NewScope("skills", KeyField("id"))
	s.BeginLoad()
	s.Put("a", row("a", "new"))
	s.Delete("b")
	reread := s.EndLoad([]json.RawMessage{row("a", "old"), row("b", "old"), row("c", "old")})
	if v, _, _ := s.Get("a"); string(v) != string(row("a", "new")) {
		t.Errorf("a = %s, want the change made during the load", v)
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
	s := NewScope("skills", KeyField("id"))
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
