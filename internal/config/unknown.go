package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/suggest"
	"github.com/iii-hq/skills-go/internal/yamlnode"
)

// UnknownKey is a key in a config file that the worker does not read. It
// does not stop the file from loading, since 0.2 ignored unknown keys
// and a bad config never blocks boot, but it is most often a misspelt key
// whose setting silently does not apply (`skils:`, `tools: {enable:
// true}`): the worker logs a warning for each and skills doctor reports
// each as a problem.
type UnknownKey struct {
	// Key is the key's dotted path from the top of the file
	// ("skils", "tools.enable").
	Key string
	// Line is the key's line in the file.
	Line int
	// Suggestion is the nearest known key at the same level, dotted
	// ("tools.enabled"); "" when none is near.
	Suggestion string
	// Known are the keys known at that level, dotted.
	Known []string
}

// String says what is wrong and what to write instead: "line 1: unknown
// key `skils` is ignored; did you mean `skills`?".
func (u UnknownKey) String() string {
	s := fmt.Sprintf("line %d: unknown key `%s` is ignored", u.Line, u.Key)
	if u.Suggestion != "" {
		return s + fmt.Sprintf("; did you mean `%s`?", u.Suggestion)
	}
	return s + "; the keys known there are " + strings.Join(u.Known, ", ")
}

// The keys the worker reads at each level, from the yaml tags of Config,
// Scopes, Tools and Search: adding a field adds its key here too.
var (
	topKeys   = yamlKeys(reflect.TypeFor[Config]())
	scopeKeys = yamlKeys(reflect.TypeFor[Scopes]())
	toolKeys  = yamlKeys(reflect.TypeFor[Tools]())
	searchKey = yamlKeys(reflect.TypeFor[Search]())
	mcpKeys   = yamlKeys(reflect.TypeFor[MCP]())
	lintKeys  = yamlKeys(reflect.TypeFor[Lint]())
)

// yamlKeys lists the keys of struct type t's yaml tags, in field order.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// unknownKey records k, a key of a mapping whose known keys are known,
// when it is not one of them; prefix names the enclosing key ("tools.").
// A YAML merge key (<<) is not a key of its own.
func (p *parser) unknownKey(k *yaml.Node, prefix string, known []string) {
	if k.ShortTag() == "!!merge" || k.Kind == yaml.ScalarNode && slices.Contains(known, k.Value) {
		return
	}
	u := UnknownKey{Key: prefix + k.Value, Line: k.Line, Known: make([]string, len(known))}
	for i, name := range known {
		u.Known[i] = prefix + name
	}
	if k.Kind != yaml.ScalarNode {
		u.Key = prefix + "(" + yamlnode.Describe(k) + " used as a key)"
	} else if near := suggest.Nearest(k.Value, known, 1); len(near) == 1 {
		u.Suggestion = prefix + near[0]
	}
	p.unknown = append(p.unknown, u)
}
