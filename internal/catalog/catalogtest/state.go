// Package catalogtest provides an in-memory engine state, and files on
// disk, for tests of the catalog and of the surfaces that read it,
// without a socket.
package catalogtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// State is a catalog.Caller that serves state::get, set, delete and list
// as the engine's state worker does: a missing key answers with no
// result, state::set echoes old_value and new_value, state::list answers
// a flat array of values in the order keys were first written. It
// records every payload; other functions are not found.
type State struct {
	mu     sync.Mutex
	scopes map[string]*scope
	calls  map[string][]string
	fail   map[string]error
}

type scope struct {
	keys   []string
	values map[string]json.RawMessage
}

// NewState returns an empty State.
func NewState() *State {
	return &State{scopes: map[string]*scope{}, calls: map[string][]string{}, fail: map[string]error{}}
}

// Call implements catalog.Caller.
func (s *State) Call(_ context.Context, fn string, data any) (json.RawMessage, error) {
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	var in struct {
		Scope string          `json:"scope"`
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[fn] = append(s.calls[fn], string(payload))
	if err := s.fail[fn]; err != nil {
		return nil, err
	}
	sc := s.scope(in.Scope)
	old, had := sc.values[in.Key]
	switch fn {
	case "state::get":
		return old, nil
	case "state::set":
		if !had {
			sc.keys = append(sc.keys, in.Key)
			old = json.RawMessage("null")
		}
		sc.values[in.Key] = in.Value
		return json.RawMessage(fmt.Sprintf(`{"old_value":%s,"new_value":%s}`, old, in.Value)), nil
	case "state::delete":
		if had {
			delete(sc.values, in.Key)
			sc.keys = slices.DeleteFunc(sc.keys, func(k string) bool { return k == in.Key })
		}
		return old, nil
	case "state::list":
		// The values as stored, byte for byte, even one that is not JSON.
		out := []byte{'['}
		for i, k := range sc.keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, sc.values[k]...)
		}
		return append(out, ']'), nil
	}
	return nil, fmt.Errorf("function %s not found", fn)
}

func (s *State) scope(name string) *scope {
	sc := s.scopes[name]
	if sc == nil {
		sc = &scope{values: map[string]json.RawMessage{}}
		s.scopes[name] = sc
	}
	return sc
}

// Put stores a raw value, as another worker would.
func (s *State) Put(scopeName, key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scope(scopeName)
	if _, had := sc.values[key]; !had {
		sc.keys = append(sc.keys, key)
	}
	sc.values[key] = json.RawMessage(value)
}

// FailWith makes every later call of fn fail with err.
func (s *State) FailWith(fn string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[fn] = err
}

// Value returns the raw value stored at key, or "" when there is none.
func (s *State) Value(scopeName, key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.scope(scopeName).values[key])
}

// CallsTo returns the payloads of every call to fn, in order.
func (s *State) CallsTo(fn string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls[fn])
}

// WriteFiles writes files (slash-separated paths relative to dir, and
// their contents) under dir, making the folders they need.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
