package registry

import (
	"errors"
	"strings"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// DecodeFast decodes the payload resources-read nearly always gets, an
// object such as {"uri":"iii://x","_caller_worker_id":"…"}, without
// reflection (iii.FastDecoder), reading it with the codec's scanner
// (wire.EachMember). Anything else (a uri that is not a plain ASCII string
// without escapes, a key that only folds to "uri", "uri" twice, an
// "after" in any case, invalid UTF-8, not an object, null) is left to encoding/json, which decides it
// as before, errors included (docs/decisions.md D15).
// FuzzReadInputDecodeFast holds what it accepts to encoding/json's result.
func (in *readResourceInput) DecodeFast(data []byte) bool {
	var uri *string
	err := wire.EachMember(data, func(key string, value []byte) error {
		if strings.EqualFold(key, "after") {
			return errLeaveToJSON // read and checked by catalog.After (D78)
		}
		if !foldsToURI(key) {
			return nil // encoding/json ignores any other member, valid as it is
		}
		// encoding/json matches keys without regard to case and lets the
		// last of duplicates win: leave both to it.
		if key != "uri" || uri != nil {
			return errLeaveToJSON
		}
		v, next, ok := plainString(value, 0)
		if !ok || next != len(value) {
			return errLeaveToJSON
		}
		s := string(v)
		uri = &s
		return nil
	})
	if err != nil {
		return false
	}
	in.URI = uri
	return true
}

// errLeaveToJSON stops DecodeFast at what it leaves to encoding/json.
var errLeaveToJSON = errors.New("left to encoding/json")

// plainString reads the JSON string at data[i] when it is printable ASCII
// without escapes, whose bytes are its value; next is the index after it.
func plainString(data []byte, i int) (value []byte, next int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return data[i+1 : j], j + 1, true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// foldsToURI reports whether a key is "uri" in any ASCII case.
func foldsToURI(key string) bool {
	return len(key) == 3 && key[0]|0x20 == 'u' && key[1]|0x20 == 'r' && key[2]|0x20 == 'i'
}
