package mcpskills

import "encoding/json"

// listEnvelopeBytes bounds what a listing page holds besides its entries:
// the object, the key and a nextCursor (an id of at most 1,024 bytes,
// escaped, in a cursor).
const listEnvelopeBytes = 16 << 10

// jsonBound is at least the length of the entry's JSON encoding, without
// encoding it: a page is cut by it.
func (s mcpSkill) jsonBound() int {
	n := len(`{"uri":,"frontmatter":,"resources":[]}`) + jsonStringBound(s.URI) + rawJSONBound(s.Frontmatter)
	for _, f := range s.Resources {
		n += len(`{"uri":,"digest":,"size":},`) + jsonStringBound(f.URI) + jsonStringBound(f.Digest) + 20
	}
	if s.Meta != nil { // a flagged skill's notes (a few rules and lines), a revision
		b, _ := json.Marshal(s.Meta) // notes always marshal
		n += len(`,"_meta":`) + len(b)
	}
	return n
}

// jsonStringBound is at least the length of s encoded as a JSON string by
// encoding/json: six bytes for each byte it may escape (\u003c), one for
// each other.
func jsonStringBound(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&', c >= 0x80:
			n += 6
		default:
			n++
		}
	}
	return n
}

// rawJSONBound is at least the length of raw JSON once encoding/json has
// compacted and HTML-escaped it: six bytes for <, > and &, two for each
// byte of a multi-byte character (U+2028 becomes \u2028).
func rawJSONBound(raw []byte) int {
	n := 0
	for _, c := range raw {
		switch {
		case c == '<', c == '>', c == '&':
			n += 6
		case c >= 0x80:
			n += 2
		default:
			n++
		}
	}
	return n
}
