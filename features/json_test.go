package features

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// parseJSON decodes one JSON value, keeping numbers as json.Number.
func parseJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// lookup follows a dotted path ("skills.0.id"); "" is the whole value.
func lookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, key := range strings.Split(path, ".") {
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[key]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// contains reports (as an error) how got fails to contain want: objects
// need every expected key with a contained value, arrays need the expected
// items as an ordered subsequence, scalars must be equal (numbers by
// value).
func contains(want, got any) error {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", show(got))
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return fmt.Errorf("missing key %q", k)
			}
			if err := contains(wv, gv); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Errorf("want an array, got %s", show(got))
		}
		j := 0
		for i, wv := range w {
			for j < len(g) && contains(wv, g[j]) != nil {
				j++
			}
			if j == len(g) {
				return fmt.Errorf("no item (in order) matching expected item %d %s in %s", i, show(wv), show(got))
			}
			j++
		}
		return nil
	default:
		if !equal(want, got) {
			return fmt.Errorf("want %s, got %s", show(want), show(got))
		}
		return nil
	}
}

// equal compares two decoded JSON values exactly (numbers by value).
func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, err1 := x.Float64()
		fy, err2 := y.Float64()
		return err1 == nil && err2 == nil && fx == fy
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// typeName is the JSON type of a decoded value.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// show renders a decoded value as compact JSON, shortened for messages.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// keysInOrder returns the keys of the object at path in raw, in the order
// they appear in the text.
func keysInOrder(raw []byte, path string) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var walk func(prefix string) ([]string, error)
	// walk reads one value; it returns the keys of the object at path.
	walk = func(prefix string) ([]string, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil, nil
		}
		var found []string
		switch d {
		case '{':
			var keys []string
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				keys = append(keys, k)
				sub, err := walk(join(prefix, k))
				if err != nil {
					return nil, err
				}
				if sub != nil {
					found = sub
				}
			}
			if prefix == path {
				found = keys
			}
		case '[':
			for i := 0; dec.More(); i++ {
				sub, err := walk(join(prefix, strconv.Itoa(i)))
				if err != nil {
					return nil, err
				}
				if sub != nil {
					found = sub
				}
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return found, nil
	}
	keys, err := walk("")
	if err == nil && keys == nil {
		err = fmt.Errorf("no object at %q", path)
	}
	return keys, err
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}
