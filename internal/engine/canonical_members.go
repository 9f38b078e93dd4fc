package engine

import (
	"bytes"
	"encoding/json"
)

// Fast paths for the two steps every registration pays twice (issue 28,
// deliverable 6: a skills::register is an invocation and a state::set,
// each of 4 KiB): adding _caller_worker_id to an invocation's payload,
// and taking state::set's arguments apart. Both used to decode the
// whole payload into maps and encode it again (values.go). A payload
// already in the engine's canonical form (isCanonical: keys sorted, no
// escape in a key, nothing the round trip would change), which is what
// every SDK's encoder sends for a skill row, is walked member by member
// instead, and its values are copied as they are: the round trip would
// give the same bytes. Anything else takes the slow path, unchanged.

// canonicalMember is one top-level member of a canonical object: the
// key's text (no escapes, by isCanonical) and the whole `"key":value`
// span [start, end) in the object's bytes, the value from valueAt.
type canonicalMember struct {
	key                 []byte
	start, valueAt, end int
}

// canonicalMembers returns the top-level members of obj, in order, when
// obj is a canonical JSON object; ok is false for anything else.
func canonicalMembers(obj []byte) (members []canonicalMember, ok bool) {
	if len(obj) < 2 || obj[0] != '{' || !isCanonical(obj) {
		return nil, false
	}
	s := canonicalScan{b: obj, i: 1}
	if obj[1] == '}' {
		return nil, true
	}
	for {
		start := s.i
		key, _ := s.str() // canonical: each member is "key":value
		s.i++             // the colon
		valueAt := s.i
		s.value(1)
		members = append(members, canonicalMember{key: key, start: start, valueAt: valueAt, end: s.i})
		if obj[s.i] == '}' {
			return members, true
		}
		s.i++ // the comma
	}
}

// callerKey is the member the engine adds to a worker's invocation.
const callerKey = "_caller_worker_id"

// withCallerCanonical is withCaller for a canonical object: the member
// _caller_worker_id put at its place in key order (replacing one the
// payload had, as the map's assignment does). ok is false when data is
// not a canonical object.
func withCallerCanonical(data []byte, workerID string) (out []byte, ok bool) {
	members, ok := canonicalMembers(data)
	if !ok {
		return nil, false
	}
	id, err := encodeValue(workerID)
	if err != nil {
		return nil, false
	}
	member := append(append(make([]byte, 0, len(callerKey)+3+len(id)), '"'), callerKey...)
	member = append(append(member, '"', ':'), id...)
	out = make([]byte, 0, len(data)+len(member)+1)
	at, end := len(data)-1, len(data)-1 // by default, after the last member
	for _, m := range members {
		if c := bytes.Compare(m.key, []byte(callerKey)); c >= 0 {
			at, end = m.start, m.start
			if c == 0 {
				end = m.end
			}
			break
		}
	}
	out = append(out, data[:at]...)
	if at > 1 && data[at-1] != ',' {
		out = append(out, ',') // after the last member
	}
	out = append(out, member...)
	if end < len(data)-1 && data[end] != ',' {
		out = append(out, ',') // before the member that follows
	}
	return append(out, data[end:]...), true
}

// stateSetCanonical takes state::set's arguments from a canonical
// payload whose scope and key are strings and whose value is given as
// value (not its alias data) and is not null; ok is false otherwise,
// and the caller decodes the payload as any other, with serde's errors.
// The value is a copy, as the slow path's is.
func stateSetCanonical(data []byte) (scope, key string, value json.RawMessage, ok bool) {
	members, ok := canonicalMembers(data)
	if !ok {
		return "", "", nil, false
	}
	var haveScope, haveKey bool
	for _, m := range members {
		raw := data[m.valueAt:m.end]
		switch string(m.key) {
		case "scope":
			haveScope = raw[0] == '"' && json.Unmarshal(raw, &scope) == nil
		case "key":
			haveKey = raw[0] == '"' && json.Unmarshal(raw, &key) == nil
		case "value":
			if string(raw) != "null" {
				value = bytes.Clone(raw)
			}
		case "data":
			return "", "", nil, false // the alias: serde's rules for both
		}
	}
	if !haveScope || !haveKey || value == nil {
		return "", "", nil, false
	}
	return scope, key, value, true
}
