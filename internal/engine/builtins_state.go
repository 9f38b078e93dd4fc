package engine

import (
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The in-process state worker (iii-state) with the kv adapter in memory.
// state::update is not provided; state::list_entries comes with
// Options.StateListEntries (state_entries.go), and the whole worker may
// register late (state_worker.go). Each function runs in the namespace it
// is registered in, on that namespace's store (stateStoreIn), and its
// writes fire that namespace's state trigger type.

var (
	stateSetInput = &inputStruct{name: "StateSetInput", fields: []field{
		{name: "scope"}, {name: "key"}, {name: "value", alias: "data", kind: kindAny},
	}}
	stateGetInput       = stateKeyInput("StateGetInput")
	stateDeleteInput    = stateKeyInput("StateDeleteInput")
	stateGetGroupInput  = &inputStruct{name: "StateGetGroupInput", fields: []field{{name: "scope"}}}
	stateListGroupInput = &inputStruct{name: "StateListGroupsInput"}
)

// stateKeyInput declares a {scope, key} input struct.
func stateKeyInput(name string) *inputStruct {
	return &inputStruct{name: name, fields: []field{{name: "scope"}, {name: "key"}}}
}

func stateBuiltins() []builtinSpec {
	return []builtinSpec{
		{stateWorkerName, "state::set", "Set a value in state", stateSet},
		{stateWorkerName, "state::get", "Get a value from state", stateGet},
		{stateWorkerName, "state::delete", "Delete a value from state", stateDelete},
		{stateWorkerName, "state::list", "Get a group from state", stateList},
		{stateWorkerName, "state::list_groups", "List all state groups", stateListGroups},
	}
}

// stateSet stores a value and returns {"new_value", "old_value"}; the old
// value is null when the key was new.
func stateSet(s *Engine, ns string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	scope, key, value, ok := stateSetCanonical(data) // canonical_members.go
	if !ok {
		a, e := stateSetInput.decode("state::set", data)
		if e != nil {
			return nil, e
		}
		scope, key, value = a.str("scope"), a.str("key"), mustEncode(a["value"])
	}
	old, err := s.writeStateIn(ns, s.stateStoreIn(ns), scope, key, value)
	if err != nil {
		return nil, stateStoreError("state::set", err)
	}
	// {"new_value":…,"old_value":…}, keys in order, written as they are
	// when both values are canonical (a value this engine stored is; one
	// another program wrote to Redis may not be).
	if old == nil {
		old = json.RawMessage("null")
	} else if !isCanonical(old) {
		return mustEncode(map[string]any{"old_value": old, "new_value": value}), nil
	}
	out := make([]byte, 0, len(value)+len(old)+len(`{"new_value":,"old_value":}`))
	out = append(append(append(out, `{"new_value":`...), value...), `,"old_value":`...)
	return append(append(out, old...), '}'), nil
}

// stateStoreError is a call the store could not serve: a write --data
// could not persist, or Redis (--state) did not answer. The code is the
// one iii's state worker gives the function when its adapter fails
// (engine/src/workers/state/state.rs in iii-hq/iii); the message names
// the file or the server and the cause. A failed write changed nothing
// and fires nothing.
func stateStoreError(fn string, err error) *wire.ErrorBody {
	return &wire.ErrorBody{Code: stateErrorCodes[fn], Message: fn + ": " + err.Error()}
}

// stateErrorCodes are iii's codes for an adapter's failure, by function
// (state::list_entries, which iii 0.24 pages from the same adapter call,
// takes list's).
var stateErrorCodes = map[string]string{
	"state::set":          "SET_ERROR",
	"state::delete":       "DELETE_ERROR",
	"state::get":          "GET_ERROR",
	"state::list":         "LIST_ERROR",
	"state::list_entries": "LIST_ERROR",
	"state::list_groups":  "LIST_GROUPS_ERROR",
}

// writeState is writeStateIn for the default namespace.
func (s *Engine) writeState(scope, key string, value json.RawMessage) (old json.RawMessage, err error) {
	return s.writeStateIn(DefaultNamespace, s.state, scope, key, value)
}

// writeStateIn stores a value in st, namespace ns's store, and fires
// state:created or state:updated there; it returns the previous value,
// nil when the key was new. A write the store cannot persist is an error,
// changes nothing and fires nothing.
func (s *Engine) writeStateIn(ns string, st *stateStore, scope, key string, value json.RawMessage) (old json.RawMessage, err error) {
	old, err = st.put(scope, key, value)
	if err != nil {
		return nil, err
	}
	event := stateUpdated
	if old == nil {
		event = stateCreated
	}
	s.stateChanged(ns, event, scope, key, old, value)
	return old, nil
}

// stateGet returns the stored value; a missing key yields no result at all
// (not null), while a stored null comes back as null.
func stateGet(s *Engine, ns string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := stateGetInput.decode("state::get", data)
	if e != nil {
		return nil, e
	}
	v, _, err := s.stateStoreIn(ns).lookup(a.str("scope"), a.str("key"))
	if err != nil {
		return nil, stateStoreError("state::get", err)
	}
	return v, nil
}

// stateDelete removes a key and returns what it held; a missing key yields
// no result, not an error.
func stateDelete(s *Engine, ns string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := stateDeleteInput.decode("state::delete", data)
	if e != nil {
		return nil, e
	}
	v, err := s.deleteStateIn(ns, s.stateStoreIn(ns), a.str("scope"), a.str("key"))
	if err != nil {
		return nil, stateStoreError("state::delete", err)
	}
	return v, nil
}

// deleteStateIn removes a key from st, namespace ns's store, and fires
// state:deleted there, even when nothing was there (as the engine does);
// it returns what the key held. A delete the store cannot persist is an
// error, changes nothing and fires nothing.
func (s *Engine) deleteStateIn(ns string, st *stateStore, scope, key string) (json.RawMessage, error) {
	v, err := st.del(scope, key)
	if err != nil {
		return nil, err
	}
	s.stateChanged(ns, stateDeleted, scope, key, v, nil)
	return v, nil
}

// stateList returns a scope's values (no keys) in first-write order, as
// one array for callers that need its bytes (a trigger's function, an
// in-process call).
func stateList(s *Engine, ns string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	values, e := stateListElements(s, ns, data)
	if e != nil {
		return nil, e
	}
	return joinArray(values), nil
}

// stateListElements is stateList's result as the stored values
// themselves, which a reply to a worker writes one by one; the store
// never changes a value's bytes, it replaces them (stateRow).
func stateListElements(s *Engine, ns string, data json.RawMessage) ([]json.RawMessage, *wire.ErrorBody) {
	a, e := stateGetGroupInput.decode("state::list", data)
	if e != nil {
		return nil, e
	}
	values, err := s.stateStoreIn(ns).list(a.str("scope"))
	if err != nil {
		return nil, stateStoreError("state::list", err)
	}
	return values, nil
}

// joinArray builds a JSON array of stored values, which are canonical JSON
// already: re-encoding them would only re-validate megabytes of bodies.
func joinArray(values []json.RawMessage) json.RawMessage {
	out := make([]byte, 0, arrayLen(values))
	out = append(out, '[')
	for i, v := range values {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']')
}

// stateListGroups returns {"groups": [...]}, every scope ever written,
// sorted.
func stateListGroups(s *Engine, ns string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	if _, e := stateListGroupInput.decode("state::list_groups", data); e != nil {
		return nil, e
	}
	groups, err := s.stateStoreIn(ns).listGroups()
	if err != nil {
		return nil, stateStoreError("state::list_groups", err)
	}
	return mustEncode(map[string]any{"groups": groups}), nil
}
