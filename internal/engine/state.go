package engine

import (
	"container/list"
	"encoding/json"
	"slices"
	"sync"
)

// stateStore is the engine's in-memory kv adapter: scope → key → value,
// with each scope remembering the order in which keys were first written
// (an IndexMap in the engine). Overwriting a key keeps its position,
// deleting it removes it, and a scope emptied by deletes stays listed. Get
// and set are O(1); every call is atomic.
type stateStore struct {
	mu     sync.RWMutex
	scopes map[string]*scopeRows

	// entries are state::list_entries' open snapshots (state_entries.go).
	entries *entrySnapshots

	// durable, with Options.DataDir, is the log every write goes through
	// before it is applied (state_log.go); nil keeps the store in memory.
	durable *stateLog

	// remote, with Options.StateURL, is the Redis server that holds the
	// store instead of memory (state_redis.go); the maps above stay empty.
	remote *redisState
}

type scopeRows struct {
	index map[string]*list.Element // key → element holding *stateRow
	order *list.List
}

// stateRow is one stored value. Its bytes are never changed in place: set
// replaces the slice, and every value stored is a slice of its own (an
// encoder's output, or a decoded copy from the state log or file). A listing can
// therefore hand out the slices themselves and write them after the
// lock is released, while the key is set again (docs/decisions.md D52).
type stateRow struct {
	key   string
	value json.RawMessage
}

func newStateStore() *stateStore {
	return &stateStore{scopes: map[string]*scopeRows{}, entries: newEntrySnapshots()}
}

// set stores value and returns the previous value (nil when there was none).
func (st *stateStore) set(scope, key string, value json.RawMessage) (old json.RawMessage) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rows := st.scopes[scope]
	if rows == nil {
		rows = &scopeRows{index: map[string]*list.Element{}, order: list.New()}
		st.scopes[scope] = rows
	}
	if el, ok := rows.index[key]; ok {
		row := el.Value.(*stateRow)
		old, row.value = row.value, value
		return old
	}
	rows.index[key] = rows.order.PushBack(&stateRow{key: key, value: value})
	return nil
}

// put is set for a state write: with a log, only once the change is on
// the disk, and not at all (an error naming the file) when it cannot be.
func (st *stateStore) put(scope, key string, value json.RawMessage) (old json.RawMessage, err error) {
	if st.remote != nil {
		return st.remote.set(scope, key, value)
	}
	if st.durable == nil {
		return st.set(scope, key, value), nil
	}
	old, _, err = st.durable.write(opSet, scope, key, value)
	return old, err
}

// del is remove for a state write, durable as put is.
func (st *stateStore) del(scope, key string) (json.RawMessage, error) {
	if st.remote != nil {
		return st.remote.del(scope, key)
	}
	if st.durable == nil {
		v, _ := st.remove(scope, key)
		return v, nil
	}
	v, _, err := st.durable.write(opDel, scope, key, nil)
	return v, err
}

// lookup is get for a state read: from Redis with Options.StateURL, where
// a read can fail.
func (st *stateStore) lookup(scope, key string) (json.RawMessage, bool, error) {
	if st.remote != nil {
		return st.remote.get(scope, key)
	}
	v, ok := st.get(scope, key)
	return v, ok, nil
}

// list is values for a state read, in first-write order in memory and in
// the hash's order in Redis.
func (st *stateStore) list(scope string) ([]json.RawMessage, error) {
	if st.remote != nil {
		return st.remote.values(scope)
	}
	return st.values(scope), nil
}

// listGroups is groups for a state read.
func (st *stateStore) listGroups() ([]string, error) {
	if st.remote != nil {
		return st.remote.groups()
	}
	return st.groups(), nil
}

// ensureScope makes a scope exist, empty when it is new.
func (st *stateStore) ensureScope(scope string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.scopes[scope] == nil {
		st.scopes[scope] = &scopeRows{index: map[string]*list.Element{}, order: list.New()}
	}
}

// get returns the stored value; ok is false for a missing key.
func (st *stateStore) get(scope, key string) (json.RawMessage, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows := st.scopes[scope]
	if rows == nil {
		return nil, false
	}
	el, ok := rows.index[key]
	if !ok {
		return nil, false
	}
	return el.Value.(*stateRow).value, true
}

// remove deletes a key and returns its value; ok is false when it was
// missing. The scope itself is kept even when it becomes empty.
func (st *stateStore) remove(scope, key string) (json.RawMessage, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rows := st.scopes[scope]
	if rows == nil {
		return nil, false
	}
	el, ok := rows.index[key]
	if !ok {
		return nil, false
	}
	delete(rows.index, key)
	rows.order.Remove(el)
	return el.Value.(*stateRow).value, true
}

// values lists a scope's values in first-write order; an unknown scope is
// empty.
func (st *stateStore) values(scope string) []json.RawMessage {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows := st.scopes[scope]
	if rows == nil {
		return []json.RawMessage{}
	}
	out := make([]json.RawMessage, 0, rows.order.Len())
	for el := rows.order.Front(); el != nil; el = el.Next() {
		out = append(out, el.Value.(*stateRow).value)
	}
	return out
}

// groups lists every scope ever written, sorted.
func (st *stateStore) groups() []string {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.groupsLocked()
}

func (st *stateStore) groupsLocked() []string {
	out := make([]string, 0, len(st.scopes))
	for name := range st.scopes {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
