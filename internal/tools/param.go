package tools

import (
	"fmt"
	"strconv"
	"strings"
)

// Type is a parameter's type.
type Type string

// The parameter types of the seed's §3.3.
const (
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeArray   Type = "array" // of strings
)

// Types lists the parameter types, in the order error messages name them.
var Types = []Type{TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeArray}

func parseType(s string) (Type, bool) {
	t := Type(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Types {
		if t == known {
			return t, true
		}
	}
	return "", false
}

// Param is one row of a tool's parameter table.
type Param struct {
	Name        string
	Type        Type
	Required    bool
	Description string
	// Default is the value used when a call gives none: from the table's
	// Default column, else from a description ending in "(default: X)".
	// nil when there is none. Its Go type is the one Check gives values of
	// the parameter's type.
	Default any
	// LeadingDash lets a value the caller gives begin with "-" where it
	// begins an argument (the table's optional "Leading dash" column).
	// Off by default: the program could take such a value for an option
	// (docs/tools.md, "Values are never options").
	LeadingDash bool
}

// parseValue reads the text of a default as a value of type t.
func parseValue(t Type, text string) (any, error) {
	text = strings.TrimSpace(text)
	switch t {
	case TypeInteger:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", text)
		}
		return n, nil
	case TypeNumber:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case TypeBoolean:
		switch strings.ToLower(text) {
		case "true", "yes":
			return true, nil
		case "false", "no":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a boolean (true or false)", text)
	case TypeArray:
		var items []string
		for _, item := range strings.Split(text, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		return items, nil
	default:
		return text, nil
	}
}

// asText is a value as it appears in a command: numbers in their shortest
// form, booleans as true/false, arrays joined with spaces (seed §3.4).
func asText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case []string:
		return strings.Join(v, " ")
	}
	return fmt.Sprint(v)
}
