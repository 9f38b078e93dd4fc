package registry

// DecodeFast decodes the payload resources-read nearly always gets, an
// object of plain strings such as {"uri":"iii://x","_caller_worker_id":"…"},
// without reflection (iii.FastDecoder). Anything else (escapes, non-ASCII,
// other value types, a key that only folds to "uri", "uri" twice, null) is
// left to encoding/json, which decides it as before, errors included
// (docs/decisions.md D15). FuzzReadInputDecodeFast holds what it accepts
// to encoding/json's result.
func (in *readResourceInput) DecodeFast(data []byte) bool {
	var uri *string
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		i++
	} else {
		for {
			key, next, ok := plainString(data, i)
			if !ok {
				return false
			}
			i = skipSpace(data, next)
			if i == len(data) || data[i] != ':' {
				return false
			}
			value, next, ok := plainString(data, skipSpace(data, i+1))
			if !ok {
				return false
			}
			if foldsToURI(key) {
				// encoding/json matches keys without regard to case and
				// lets the last of duplicates win: leave both to it.
				if string(key) != "uri" || uri != nil {
					return false
				}
				s := string(value)
				uri = &s
			}
			i = skipSpace(data, next)
			if i == len(data) {
				return false
			}
			if data[i] == '}' {
				i++
				break
			}
			if data[i] != ',' {
				return false
			}
			i = skipSpace(data, i+1)
		}
	}
	if skipSpace(data, i) != len(data) {
		return false
	}
	in.URI = uri
	return true
}

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

// foldsToURI reports whether an ASCII key is "uri" in any case.
func foldsToURI(key []byte) bool {
	return len(key) == 3 && key[0]|0x20 == 'u' && key[1]|0x20 == 'r' && key[2]|0x20 == 'i'
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}
