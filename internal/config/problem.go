package config

import (
	"fmt"
	"reflect"
	"strings"
)

// Problem is a key of a config file whose value the worker cannot use:
// a wrong type, a value out of range, a repeated key. It does not stop
// the rest of the file from applying: that key alone keeps its default
// (docs/decisions.md D66), the worker logs a warning for each and skills
// doctor and skills::diagnostics report each.
type Problem struct {
	// Key is the key's dotted path from the top of the file
	// ("state_timeout_ms", "tools.max_concurrent"); a list entry's
	// problem is its list's key ("roots"), and the whole list falls back.
	Key string
	// Line is the key's line in the file; 0 where there are no lines (a
	// configuration entry's value).
	Line int
	// Message names the key, the value given and what is allowed.
	Message string
}

// String is the problem with its line and what became of the key:
// "line 2: `state_timeout_ms` must be …, got str \"10s\"; `state_timeout_ms`
// keeps its default".
func (p Problem) String() string {
	s := p.Message + "; `" + p.Key + "` keeps its default"
	if p.Line > 0 {
		s = fmt.Sprintf("line %d: %s", p.Line, s)
	}
	return s
}

// joinProblems is problems as one error text, without the fallback
// note: Parse, Validate and ParseValue refuse the whole value.
func joinProblems(problems []Problem) string {
	texts := make([]string, len(problems))
	for i, p := range problems {
		texts[i] = p.Message
		if p.Line > 0 {
			texts[i] = fmt.Sprintf("line %d: %s", p.Line, p.Message)
		}
	}
	return strings.Join(texts, "; ")
}

// fallBack sets the key at the dotted path key to its default, found by
// the yaml tags, so no key can be missed; an unknown path changes
// nothing. A roots key that falls back is as if absent (RootsSet false).
func (c *Config) fallBack(key string) {
	d := Default()
	dst, src := reflect.ValueOf(c).Elem(), reflect.ValueOf(&d).Elem()
	for part := range strings.SplitSeq(key, ".") {
		i := fieldByTag(dst.Type(), part)
		if i < 0 {
			return
		}
		dst, src = dst.Field(i), src.Field(i)
	}
	dst.Set(src)
	if key == "roots" {
		c.RootsSet = false
	}
}

// fieldByTag is the index of t's field whose yaml tag is name, or -1.
func fieldByTag(t reflect.Type, name string) int {
	if t.Kind() != reflect.Struct {
		return -1
	}
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag == name {
			return i
		}
	}
	return -1
}
