package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/ids"
)

// ArgumentError is a call whose arguments do not match the tool's
// parameters: the worker answers it as invalid_argument.
type ArgumentError struct{ Msg string }

func (e *ArgumentError) Error() string { return e.Msg }

// ErrorCode is the wire code of the error (the registry's codes).
func (e *ArgumentError) ErrorCode() string { return "invalid_argument" }

func argErr(format string, a ...any) error { return &ArgumentError{Msg: fmt.Sprintf(format, a...)} }

// Check decodes a call's arguments (a JSON object; null or empty is no
// arguments) against params: every required parameter present, every
// value of its parameter's type, no other names. The values come back as
// string, int64, float64, bool or []string; a JSON null counts as absent.
func Check(params []Param, raw json.RawMessage) (map[string]any, error) {
	fields := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return nil, argErr("the arguments must be a JSON object of the tool's parameters (%s)", paramNames(params))
		}
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&fields); err != nil {
			return nil, argErr("the arguments are not a JSON object: %s", ids.Unquoted(err.Error()))
		}
	}
	byName := make(map[string]Param, len(params))
	for _, p := range params {
		byName[p.Name] = p
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	values := make(map[string]any, len(fields))
	for _, name := range names {
		p, ok := byName[name]
		if !ok {
			return nil, argErr("unknown parameter %s; the parameters are %s", ids.Quote(name), paramNames(params))
		}
		if bytes.Equal(bytes.TrimSpace(fields[name]), []byte("null")) {
			continue
		}
		v, err := decodeValue(p.Type, fields[name])
		if err != nil {
			return nil, argErr("parameter %s: %v", p.Name, err)
		}
		values[name] = v
	}
	for _, p := range params {
		if _, ok := values[p.Name]; p.Required && !ok {
			return nil, argErr("missing required parameter %s (%s): %s", p.Name, p.Type, p.Description)
		}
	}
	return values, nil
}

// decodeValue reads raw as a value of type t.
func decodeValue(t Type, raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch t {
	case TypeString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case TypeInteger:
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return i, nil
			}
			if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return int64(f), nil
			}
		}
	case TypeNumber:
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil && !math.IsInf(f, 0) {
				return f, nil
			}
		}
	case TypeBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case TypeArray:
		if items, ok := v.([]any); ok {
			out := make([]string, len(items))
			for i, item := range items {
				s, ok := item.(string)
				if !ok {
					return nil, fmt.Errorf("item %d is %s, want a string", i, describe(item))
				}
				out[i] = s
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("got %s, want %s", describe(v), article(t))
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "a string " + ids.Quote(v)
	case json.Number:
		return "the number " + ids.Unquoted(v.String())
	case bool:
		return fmt.Sprintf("the boolean %t", v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func article(t Type) string {
	switch t {
	case TypeInteger:
		return "an integer"
	case TypeArray:
		return "an array of strings"
	}
	return "a " + string(t)
}

func paramNames(params []Param) string {
	if len(params) == 0 {
		return "none"
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// InputSchema is the JSON Schema of a tool's request: an object with a
// property per parameter (its type, description and default), the
// required ones listed, nothing else allowed.
func InputSchema(params []Param) map[string]any {
	props := make(map[string]any, len(params))
	required := []string{}
	for _, p := range params {
		prop := map[string]any{"type": string(p.Type)}
		if p.Type == TypeArray {
			prop["items"] = map[string]any{"type": "string"}
		}
		if p.Description != "" {
			prop["description"] = p.Description
		}
		if p.Default != nil {
			prop["default"] = p.Default
		}
		props[p.Name] = prop
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}
