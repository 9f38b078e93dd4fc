package engine

import (
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The state file of D46, DataDir/state.json, which an engine before D67
// rewrote whole about once a second. It is read once, when DataDir has no
// state log yet (state_log.go), and then renamed state.json.migrated; a
// file that does not decode stops the start with its path, and is never
// loaded in part.

// StateFile is the old file's name inside DataDir.
const StateFile = "state.json"

// stateFileFormat is the file's layout: every scope ever written (empty
// ones too, as state::list_groups lists them), with its rows in first-write
// order.
type stateFileFormat struct {
	Version int              `json:"version"`
	Scopes  []stateFileScope `json:"scopes"`
}

type stateFileScope struct {
	Scope string         `json:"scope"`
	Rows  []stateFileRow `json:"rows"`
}

type stateFileRow struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// snapshot copies the store's content.
func (st *stateStore) snapshot() stateFileFormat {
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := stateFileFormat{Version: 1, Scopes: []stateFileScope{}}
	for _, name := range st.groupsLocked() {
		rows := st.scopes[name]
		sc := stateFileScope{Scope: name, Rows: make([]stateFileRow, 0, rows.order.Len())}
		for el := rows.order.Front(); el != nil; el = el.Next() {
			row := el.Value.(*stateRow)
			sc.Rows = append(sc.Rows, stateFileRow{Key: row.key, Value: row.value})
		}
		out.Scopes = append(out.Scopes, sc)
	}
	return out
}

// loadFile replaces the store's content with a file's.
func (st *stateStore) loadFile(f stateFileFormat) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.scopes = map[string]*scopeRows{}
	for _, sc := range f.Scopes {
		rows := &scopeRows{index: map[string]*list.Element{}, order: list.New()}
		for _, r := range sc.Rows {
			rows.index[r.Key] = rows.order.PushBack(&stateRow{key: r.Key, value: r.Value})
		}
		st.scopes[sc.Scope] = rows
	}
}

// StateFileError is a state file that cannot be read or decoded: Start
// refuses to run on it rather than lose or half-load what it holds.
type StateFileError struct{ Err error }

func (e *StateFileError) Error() string { return e.Err.Error() }
func (e *StateFileError) Unwrap() error { return e.Err }

// readStateFile reads DataDir's state file; a missing one is empty state.
func readStateFile(path string) (stateFileFormat, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return stateFileFormat{}, false, nil
	}
	if err != nil {
		return stateFileFormat{}, false, fmt.Errorf("read state file %s: %w", path, err)
	}
	var f stateFileFormat
	corrupt := func(why string) error {
		return fmt.Errorf("state file %s is not one this engine wrote (%s); nothing was loaded. Move it away to start with empty state", path, why)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, false, corrupt(err.Error())
	}
	if f.Version != 1 {
		return f, false, corrupt(fmt.Sprintf("version %d, want 1", f.Version))
	}
	seen := map[string]bool{}
	for _, sc := range f.Scopes {
		if seen[sc.Scope] {
			return f, false, corrupt(fmt.Sprintf("scope %q appears twice", sc.Scope))
		}
		seen[sc.Scope] = true
		keys := map[string]bool{}
		for i, r := range sc.Rows {
			if keys[r.Key] || !json.Valid(r.Value) {
				return f, false, corrupt(fmt.Sprintf("scope %q has a repeated key or a value that is not JSON at key %q", sc.Scope, r.Key))
			}
			keys[r.Key] = true
			// Stored values are canonical (state::list writes them as they
			// are); a file written before HTML escaping was turned off, or
			// edited by hand, is brought back to that form.
			if !isCanonical(r.Value) {
				sc.Rows[i].Value = canonical(r.Value)
			}
		}
	}
	return f, true, nil
}
