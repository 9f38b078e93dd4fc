package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The engine's in-process functions take their input through
// serde_json::from_value into a Rust struct. This file reproduces what a
// caller can observe of that step: unknown keys are ignored, keys are
// visited in sorted order (the Value is a BTreeMap), the first bad field
// fails the call, then missing required fields are reported in declaration
// order, and the message reads like serde's.

// fieldKind is the Rust type of one input field.
type fieldKind int

const (
	kindString  fieldKind = iota // String
	kindAny                      // serde_json::Value
	kindBool                     // bool
	kindU32                      // u32
	kindStrings                  // Vec<String>
	kindStruct                   // a nested struct (see field.nested)
)

// field is one field of an input struct.
type field struct {
	name     string
	alias    string // serde(alias = ...)
	kind     fieldKind
	optional bool         // Option<T>: absent or null reads as None
	nested   *inputStruct // kindStruct only
}

// inputStruct describes the Rust input struct of a built-in function.
type inputStruct struct {
	name   string
	fields []field
}

// args holds the decoded fields that were present and not null. Values are
// string, bool, uint32, []string, map[string]any (nested structs) or, for
// kindAny, the decoded JSON value.
type args map[string]any

func (a args) str(name string) string {
	s, _ := a[name].(string)
	return s
}

// optStr returns the string and whether the field was given.
func (a args) optStr(name string) (string, bool) {
	s, ok := a[name].(string)
	return s, ok
}

func (a args) strs(name string) ([]string, bool) {
	s, ok := a[name].([]string)
	return s, ok
}

// decode checks data against the struct for function fn and returns the
// engine's deserialization_error when serde would have refused it.
func (in *inputStruct) decode(fn string, data json.RawMessage) (args, *wire.ErrorBody) {
	v, err := decodeValue(data)
	if err != nil {
		return nil, deserializationError(fn, err.Error())
	}
	a, msg := in.check(v)
	if msg != "" {
		return nil, deserializationError(fn, msg)
	}
	return a, nil
}

func deserializationError(fn, msg string) *wire.ErrorBody {
	return &wire.ErrorBody{
		Code:    "deserialization_error",
		Message: fmt.Sprintf("Failed to deserialize input for %s: %s", fn, msg),
	}
}

// check returns the decoded fields or serde's error message.
func (in *inputStruct) check(v any) (args, string) {
	obj, ok := v.(map[string]any)
	if !ok {
		// serde_json would also accept a positional array for a struct;
		// no SDK sends one, so arrays are refused here.
		return nil, invalidType(v, "struct "+in.name)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := args{}
	seen := map[string]bool{}
	for _, k := range keys {
		f := in.lookup(k)
		if f == nil {
			continue
		}
		if seen[f.name] {
			return nil, fmt.Sprintf("duplicate field `%s`", f.name)
		}
		seen[f.name] = true
		val := obj[k]
		if val == nil && f.optional {
			continue
		}
		parsed, msg := f.parse(val)
		if msg != "" {
			return nil, msg
		}
		out[f.name] = parsed
	}
	for _, f := range in.fields {
		if !seen[f.name] && !f.optional {
			return nil, fmt.Sprintf("missing field `%s`", f.name)
		}
	}
	return out, ""
}

func (in *inputStruct) lookup(key string) *field {
	for i := range in.fields {
		if in.fields[i].name == key || (in.fields[i].alias != "" && in.fields[i].alias == key) {
			return &in.fields[i]
		}
	}
	return nil
}

func (f *field) parse(v any) (any, string) {
	switch f.kind {
	case kindAny:
		return v, ""
	case kindString:
		if s, ok := v.(string); ok {
			return s, ""
		}
		return nil, invalidType(v, "a string")
	case kindBool:
		if b, ok := v.(bool); ok {
			return b, ""
		}
		return nil, invalidType(v, "a boolean")
	case kindU32:
		return parseU32(v)
	case kindStrings:
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidType(v, "a sequence")
		}
		out := make([]string, 0, len(arr))
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				return nil, invalidType(e, "a string")
			}
			out = append(out, s)
		}
		return out, ""
	case kindStruct:
		a, msg := f.nested.check(v)
		if msg != "" {
			return nil, msg
		}
		return map[string]any(a), ""
	}
	return nil, "unsupported field kind"
}

func parseU32(v any) (any, string) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, invalidType(v, "u32")
	}
	if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
		if i < 0 || i > math.MaxUint32 {
			return nil, fmt.Sprintf("invalid value: integer `%d`, expected u32", i)
		}
		return uint32(i), ""
	}
	if u, err := strconv.ParseUint(n.String(), 10, 64); err == nil {
		return nil, fmt.Sprintf("invalid value: integer `%d`, expected u32", u)
	}
	return nil, invalidType(v, "u32")
}

// invalidType renders serde_json's "invalid type" message.
func invalidType(v any, expected string) string {
	return fmt.Sprintf("invalid type: %s, expected %s", unexpected(v), expected)
}

// unexpected names a JSON value the way serde_json's errors do.
func unexpected(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean `%t`", x)
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return fmt.Sprintf("integer `%s`", x)
		}
		if _, err := strconv.ParseUint(x.String(), 10, 64); err == nil {
			return fmt.Sprintf("integer `%s`", x)
		}
		f, _ := x.Float64()
		s := strconv.FormatFloat(f, 'g', -1, 64)
		s = strings.Replace(s, "e+", "e", 1)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return fmt.Sprintf("floating point `%s`", s)
	case string:
		return "string " + strconv.Quote(x)
	case []any:
		return "sequence"
	case map[string]any:
		return "map"
	}
	return fmt.Sprintf("%v", v)
}
