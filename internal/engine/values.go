package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/google/uuid"
)

// The engine holds every JSON payload as a serde_json::Value built without
// the preserve_order feature: objects are BTreeMaps. Whatever passes through
// it (invocation data, results, stored state, schemas, trigger configs)
// therefore comes out with its object keys sorted, duplicate keys resolved
// to the last one and no insignificant whitespace. The helpers below give
// the local engine the same observable shape. Number literals are kept as
// written (serde_json would reformat floats such as 1.50 as 1.5).

// decodeValue parses one JSON value, keeping numbers as json.Number.
func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode json value: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("decode json value: trailing data after the value")
	}
	return v, nil
}

// encodeValue renders v compactly with sorted object keys and without HTML
// escaping.
func encodeValue(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json value: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// mustEncode encodes values the engine builds itself; they always encode.
func mustEncode(v any) json.RawMessage {
	b, err := encodeValue(v)
	if err != nil {
		panic(err)
	}
	return b
}

// canonical rewrites raw the way a round trip through serde_json::Value
// would. Nil stays nil (an absent field). Input that does not parse is
// returned unchanged; frames were validated by the decoder already. Input
// already in that form is copied as it is (isCanonical): like the other
// paths the result is a value of its own, whatever becomes of the frame
// it was cut from. Other input is re-encoded without building maps where
// it can be (reencode).
func canonical(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	if isCanonical(raw) {
		return bytes.Clone(raw)
	}
	if out, ok := reencode(raw); ok {
		return out
	}
	return roundTrip(raw)
}

// roundTrip is canonical's slow path: decode, then encode.
func roundTrip(raw json.RawMessage) json.RawMessage {
	v, err := decodeValue(raw)
	if err != nil {
		return raw
	}
	b, err := encodeValue(v)
	if err != nil {
		return raw
	}
	return b
}

// withCaller adds "_caller_worker_id" to an object payload, as the engine
// does for every sync and void call that comes from a worker connection.
// Other JSON values pass through (canonicalised) unchanged.
func withCaller(data json.RawMessage, workerID string) json.RawMessage {
	if out, ok := withCallerCanonical(data, workerID); ok {
		return out
	}
	// Keys out of order (a Go struct's fields, as the skills worker's
	// state::set sends them) are put in order without building maps.
	if c, ok := reencode(data); ok {
		if out, ok := withCallerCanonical(c, workerID); ok {
			return out
		}
	}
	return withCallerRoundTrip(data, workerID)
}

// withCallerRoundTrip is withCaller's slow path: decode, add, encode.
func withCallerRoundTrip(data json.RawMessage, workerID string) json.RawMessage {
	v, err := decodeValue(data)
	if err != nil {
		return data
	}
	if obj, ok := v.(map[string]any); ok {
		obj["_caller_worker_id"] = workerID
	}
	b, err := encodeValue(v)
	if err != nil {
		return data
	}
	return b
}

// normalizeUUID renders an id the engine parsed as a UUID the way it
// serialises it again: lowercase and hyphenated.
func normalizeUUID(id string) (string, bool) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// metaString reads an optional string the worker reported.
func metaString(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// rawOrNil turns an absent JSON field into null for listings.
func rawOrNil(r json.RawMessage) any {
	if r == nil {
		return nil
	}
	return r
}
