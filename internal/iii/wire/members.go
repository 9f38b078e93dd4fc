package wire

import (
	"encoding/json"
	"errors"
	"fmt"
)

// errNotObject is EachMember's error for input that is not an object.
var errNotObject = errors.New("not a JSON object")

// EachMember reads one JSON object in a single validating pass (valid
// JSON in valid UTF-8, nothing after it but whitespace), calling f with
// every member's decoded key and the raw extent of its value, in order. It
// stops at f's first error and returns it.
func EachMember(b []byte, f func(key string, value []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return trailing(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return fmt.Errorf("%w: expected a key at offset %d", errSyntax, i)
		}
		kend, plain, err := skipString(b, i)
		if err != nil {
			return err
		}
		key, err := stringValue(b[i:kend], plain)
		if err != nil {
			return err
		}
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return fmt.Errorf("%w: expected ':' at offset %d", errSyntax, i)
		}
		vstart := skipSpace(b, i+1)
		vend, err := skipValue(b, vstart, 1)
		if err != nil {
			return err
		}
		if err := f(key, b[vstart:vend]); err != nil {
			return err
		}
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return trailing(b, i+1)
		}
		return fmt.Errorf("%w: expected ',' or '}' at offset %d", errSyntax, i)
	}
}

// Members reads the JSON object b in one validating pass (the codec's
// scanner, no encoding/json) and returns the raw values of the members
// named, in the order of names: nil for a member that is absent. A named
// member given twice is an error, as it is for serde. It lets a payload of
// known shape be read without decoding, or checking twice, the large
// values it carries.
func Members(b []byte, names ...string) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(names))
	err := EachMember(b, func(key string, v []byte) error {
		for n, name := range names {
			if key != name {
				continue
			}
			if out[n] != nil {
				return fmt.Errorf("duplicate field %q", key)
			}
			out[n] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// String decodes raw as a JSON string: its value, or an error when raw is
// not a string literal.
func String(raw []byte) (string, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", errors.New("not a JSON string")
	}
	end, plain, err := skipString(raw, 0)
	if err != nil {
		return "", err
	}
	if err := trailing(raw, end); err != nil {
		return "", err
	}
	return stringValue(raw[:end], plain)
}
