package engine

import (
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"
)

// Local state that lasts (docs/decisions.md D46): with Options.DataDir the
// state store is kept in DataDir/state.json, loaded at start, written
// atomically (a temporary file, synced, renamed over the old one) at most
// flushInterval after a change and once more on Close. A crash loses at
// most the last interval of writes; a file that does not decode stops the
// start with its path, and is never loaded in part.

// StateFile is the file's name inside DataDir.
const StateFile = "state.json"

// flushInterval bounds how long a change waits to reach the disk.
const flushInterval = 500 * time.Millisecond

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

// snapshot copies the store's content, and the change count it is at.
func (st *stateStore) snapshot() (stateFileFormat, uint64) {
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
	return out, st.changes
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

// writeStateFile replaces the file at path atomically and durably.
func writeStateFile(path string, f stateFileFormat) error {
	// Without HTML escaping: json.Marshal would write a stored "<" as
	// "\u003c", and the value would no longer be the bytes state::list
	// answered with before the restart (docs/decisions.md D52).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return err
	}
	b := buf.Bytes()
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+StateFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close() //nolint:errcheck // the write failed
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close() //nolint:errcheck // the sync failed
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil { // the rename itself reaches the disk
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// persist writes the state file whenever the store changed, until quit;
// then once more.
func (s *Engine) persist(path string, saved uint64) {
	defer s.bg.Done()
	t := time.NewTicker(flushInterval)
	defer t.Stop()
	flush := func() {
		snap, changes := s.state.snapshot()
		if changes == saved {
			return
		}
		if err := writeStateFile(path, snap); err != nil {
			s.log.Warn("state not written to disk; will try again", zap.String("path", path), zap.Error(err))
			return
		}
		saved = changes
	}
	for {
		select {
		case <-t.C:
			flush()
		case <-s.quit:
			flush()
			return
		}
	}
}
