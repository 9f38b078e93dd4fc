package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// State written through the protocol survives a Close and a new Start on
// the same directory, in the same order, empty scopes included (D46).
func TestStateLastsAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	s := newTestServerWith(t, Options{DataDir: dir})
	p := dial(t, s)
	p.callOK("state::set", `{"scope":"skills","key":"b","value":{"id":"b"}}`)
	p.callOK("state::set", `{"scope":"skills","key":"a","value":{"id":"a","n":[1,2]}}`)
	p.callOK("state::set", `{"scope":"skills","key":"b","value":{"id":"b","v":2}}`)
	p.callOK("state::set", `{"scope":"gone","key":"x","value":1}`)
	p.callOK("state::delete", `{"scope":"gone","key":"x"}`)
	s.Close()

	again := newTestServerWith(t, Options{DataDir: dir})
	q := dial(t, again)
	if got := string(q.callOK("state::list", `{"scope":"skills"}`)); got != `[{"id":"b","v":2},{"id":"a","n":[1,2]}]` {
		t.Errorf("state::list after a restart = %s", got)
	}
	if got := string(q.callOK("state::list_groups", `{}`)); !strings.Contains(got, `"gone"`) {
		t.Errorf("list_groups after a restart = %s, want the emptied scope kept", got)
	}
}

// A value with characters json.Marshal escapes as HTML lists the same
// bytes after a restart as before it.
func TestStateValuesKeepTheirBytesAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	s := newTestServerWith(t, Options{DataDir: dir})
	p := dial(t, s)
	p.callOK("state::set", `{"scope":"s","key":"a","value":{"t":"<b> & </b>","u":"\u2028"}}`)
	before := string(p.callOK("state::list", `{"scope":"s"}`))
	s.Close()
	again := newTestServerWith(t, Options{DataDir: dir})
	if got := string(dial(t, again).callOK("state::list", `{"scope":"s"}`)); got != before {
		t.Errorf("state::list after a restart = %s, before it %s", got, before)
	}
}

// A state.json an engine before D67 wrote is loaded once into the state
// log, in the canonical form (a file written with HTML escapes, as this
// engine wrote it before, lists the same bytes as a write through
// state::set), and renamed state.json.migrated; a later start reads the
// log only.
func TestStateFileIsMigratedOnce(t *testing.T) {
	dir := t.TempDir()
	old := `{"version":1,"scopes":[{"scope":"s","rows":[{"key":"a","value":{"u":1, "t":"\u003cb\u003e \u0026"}}]},{"scope":"empty","rows":[]}]}`
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newTestServerWith(t, Options{DataDir: dir})
	p := dial(t, s)
	if got, want := string(p.callOK("state::list", `{"scope":"s"}`)), `[{"t":"<b> &","u":1}]`; got != want {
		t.Errorf("state::list of an escaped state file = %s, want %s", got, want)
	}
	p.callOK("state::set", `{"scope":"s","key":"b","value":2}`)
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, StateFile)); !os.IsNotExist(err) {
		t.Errorf("state.json is still there after the migration (%v)", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, StateFile+".migrated")); err != nil || string(b) != old {
		t.Errorf("state.json.migrated = %q, %v; want the old file as it was", b, err)
	}
	again := newTestServerWith(t, Options{DataDir: dir})
	q := dial(t, again)
	if got, want := string(q.callOK("state::list", `{"scope":"s"}`)), `[{"t":"<b> &","u":1},2]`; got != want {
		t.Errorf("state::list after the second start = %s, want %s", got, want)
	}
	if got := string(q.callOK("state::list_groups", `{}`)); !strings.Contains(got, `"empty"`) {
		t.Errorf("list_groups = %s, want the old file's empty scope", got)
	}
}

// A state file (or a state log without its header) that does not decode
// stops the start with its path and is left as it was; nothing is loaded
// half.
func TestCorruptStateFileStopsTheStart(t *testing.T) {
	for name, content := range map[string]string{
		"torn":          `{"version":1,"scopes":[{"scope":"skills","rows":[{"key":"a","value":{"id":`,
		"other version": `{"version":2,"scopes":[]}`,
		"repeated key":  `{"version":1,"scopes":[{"scope":"s","rows":[{"key":"a","value":1},{"key":"a","value":2}]}]}`,
		"not json":      `hello`,
		"log":           `not a state log`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, StateFile)
			if name == "log" {
				path = filepath.Join(dir, StateLog)
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Start(context.Background(), "127.0.0.1:0", Options{DataDir: dir})
			if err == nil {
				s.Close()
				t.Fatal("a corrupt state file was accepted")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "nothing was loaded") {
				t.Errorf("error = %v, want one naming %s", err, path)
			}
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Error("the corrupt file was changed")
			}
		})
	}
}
