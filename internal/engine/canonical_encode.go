package engine

import (
	"bytes"
	"encoding/json"
	"slices"
)

// JSON that is compact but not sorted (a Go worker's struct fields come
// out in declaration order) cannot pass through as it is, but it need not
// be decoded into maps either: reencode copies every scalar already in
// canonical form as it stands, re-encodes the rare string that is not,
// and only moves whole members of an object whose keys are out of order.
// It gives exactly the round trip's bytes (TestCanonicalFastPathIsTheRoundTrip,
// FuzzCanonical) at a fraction of its cost; anything it is not sure of
// (bad JSON, very deep nesting, a key that is not written as
// encoding/json writes it, whose order is that of its decoded text) it
// leaves to the round trip.

// reencode is canonical's middle path: ok is false when the round trip
// must decide.
func reencode(raw []byte) (out []byte, ok bool) {
	e := reencoder{in: raw, out: make([]byte, 0, len(raw))}
	e.space()
	if !e.value(0) {
		return nil, false
	}
	e.space()
	return e.out, e.i == len(raw)
}

// reencoder writes the canonical form of in to out.
type reencoder struct {
	in, out []byte
	i       int
	members []member // a stack: each open object's members, innermost last
	scratch []byte   // an object's written members while they are put in order
}

// member is one written member of an object: where `"key":value` is in
// out, and where its key ends (out[start+1:keyEnd] is the key's text). It
// holds no pointer, so sorting members costs no write barrier.
type member struct{ start, keyEnd, end int }

// key is the text of m's key in buf, a copy of out from offset base.
func (m member) key(buf []byte, base int) []byte { return buf[m.start+1-base : m.keyEnd-base] }

func (e *reencoder) space() {
	for e.i < len(e.in) {
		switch e.in[e.i] {
		case ' ', '\t', '\n', '\r':
			e.i++
		default:
			return
		}
	}
}

func (e *reencoder) value(depth int) bool {
	if e.i >= len(e.in) || depth > maxCanonicalDepth {
		return false
	}
	start := e.i
	switch c := e.in[e.i]; {
	case c == '{':
		return e.object(depth + 1)
	case c == '[':
		return e.array(depth + 1)
	case c == '"':
		return e.str()
	case c == 't', c == 'f', c == 'n', c == '-', c >= '0' && c <= '9':
		// Literals and numbers come out as written.
		s := canonicalScan{b: e.in, i: e.i}
		if !s.value(depth) {
			return false
		}
		e.i = s.i
		e.out = append(e.out, e.in[start:e.i]...)
		return true
	}
	return false
}

// str writes the string at e.i in canonical form.
func (e *reencoder) str() bool {
	end, canonical := stringEnd(e.in, e.i)
	if end < 0 {
		return false
	}
	span := e.in[e.i:end]
	e.i = end
	if canonical {
		e.out = append(e.out, span...)
		return true
	}
	var text string
	if json.Unmarshal(span, &text) != nil {
		return false
	}
	enc, err := encodeValue(text)
	if err != nil {
		return false
	}
	e.out = append(e.out, enc...)
	return true
}

func (e *reencoder) array(depth int) bool {
	if !e.items('[', ']', func() bool { return e.value(depth) }) {
		return false
	}
	e.out = append(e.out, ']')
	return true
}

// object writes the members as they come, then, only when their keys are
// not strictly increasing, puts them in order, the last of equal keys
// winning, as a decoded map would have them.
func (e *reencoder) object(depth int) bool {
	base := len(e.members)
	defer func() { e.members = e.members[:base] }()
	ok := e.items('{', '}', func() bool {
		if e.i >= len(e.in) || e.in[e.i] != '"' {
			return false
		}
		start := len(e.out)
		end, canonical := stringEnd(e.in, e.i)
		if end < 0 || !canonical || bytes.IndexByte(e.in[e.i:end], '\\') >= 0 {
			return false // a key is ordered by its decoded text: the round trip's job
		}
		e.out = append(e.out, e.in[e.i:end]...)
		e.i = end
		keyEnd := len(e.out) - 1
		e.space()
		if e.i >= len(e.in) || e.in[e.i] != ':' {
			return false
		}
		e.i++
		e.out = append(e.out, ':')
		e.space()
		if !e.value(depth) {
			return false
		}
		e.members = append(e.members, member{start: start, keyEnd: keyEnd, end: len(e.out)})
		return true
	})
	if !ok {
		return false
	}
	e.order(e.members[base:])
	e.out = append(e.out, '}')
	return true
}

// items reads the container that opens at e.i, writing its opening and
// the commas between its items (item reads and writes each one); the
// caller writes the closing byte.
func (e *reencoder) items(open, close byte, item func() bool) bool {
	e.i++
	e.out = append(e.out, open)
	e.space()
	if e.i < len(e.in) && e.in[e.i] == close {
		e.i++
		return true
	}
	for {
		e.space()
		if !item() {
			return false
		}
		e.space()
		if e.i >= len(e.in) {
			return false
		}
		switch e.in[e.i] {
		case ',':
			e.i++
			e.out = append(e.out, ',')
		case close:
			e.i++
			return true
		default:
			return false
		}
	}
}

// order rewrites the members ms, which are the last thing in out, sorted
// by key with duplicates resolved to the last.
func (e *reencoder) order(ms []member) {
	sorted := true
	for k := 1; k < len(ms); k++ {
		if bytes.Compare(ms[k-1].key(e.out, 0), ms[k].key(e.out, 0)) >= 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	first := ms[0].start
	e.scratch = append(e.scratch[:0], e.out[first:]...)
	sortMembers(ms, e.scratch, first)
	e.out = e.out[:first]
	for k, m := range ms {
		if k+1 < len(ms) && bytes.Equal(m.key(e.scratch, first), ms[k+1].key(e.scratch, first)) {
			continue // a later member has the same key
		}
		if len(e.out) > first {
			e.out = append(e.out, ',')
		}
		e.out = append(e.out, e.scratch[m.start-first:m.end-first]...)
	}
}

// sortMembers sorts ms by key, keeping equal keys in their order; buf
// holds the members, from offset base of out. Objects are mostly small (a
// struct's fields), where insertion sort is quickest.
func sortMembers(ms []member, buf []byte, base int) {
	if len(ms) > 12 {
		slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key(buf, base), b.key(buf, base)) })
		return
	}
	for k := 1; k < len(ms); k++ {
		m, j := ms[k], k
		for ; j > 0 && bytes.Compare(ms[j-1].key(buf, base), m.key(buf, base)) > 0; j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
}
