package fsource

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// promptMeta is the part of a prompt's frontmatter the worker reads.
// Absent and null keys are "".
type promptMeta struct {
	name        string
	description string
}

// parsePromptMeta parses frontmatter YAML. It must be empty, null or a
// mapping; `name` and `description`, when present and not null, must be
// strings; other keys are ignored. Line numbers in errors count from the
// top of the file (the opening fence is line 1).
func parsePromptMeta(front []byte) (meta promptMeta, err error) {
	defer func() {
		// yaml.v3 has panicked on hostile input in the past; a bad file
		// must never take the worker down.
		if r := recover(); r != nil {
			meta, err = promptMeta{}, fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	// The leading newline stands in for the opening fence line, so that
	// the parser's line numbers match the file's.
	doc := make([]byte, 0, len(front)+1)
	doc = append(append(doc, '\n'), front...)
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return promptMeta{}, yamlError(err)
	}
	if len(root.Content) == 0 {
		return promptMeta{}, nil // an empty block
	}
	m := resolve(root.Content[0])
	if isNull(m) {
		return promptMeta{}, nil
	}
	if m.Kind != yaml.MappingNode {
		return promptMeta{}, fmt.Errorf("line %d: frontmatter must be a mapping of keys such as `description: …`, got %s", m.Line, describe(m))
	}
	seen := make(map[string]int) // key -> line
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || (k.Value != "name" && k.Value != "description") {
			continue
		}
		if line, dup := seen[k.Value]; dup {
			return promptMeta{}, fmt.Errorf("line %d: key `%s` is repeated (first at line %d)", k.Line, k.Value, line)
		}
		seen[k.Value] = k.Line
		s, err := stringValue(k.Value, v)
		if err != nil {
			return promptMeta{}, err
		}
		if k.Value == "name" {
			meta.name = s
		} else {
			meta.description = s
		}
	}
	return meta, nil
}

// stringValue returns a string scalar's value, "" for null, and an error
// for anything else (numbers, booleans, lists, mappings).
func stringValue(key string, n *yaml.Node) (string, error) {
	n = resolve(n)
	switch {
	case isNull(n):
		return "", nil
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		return n.Value, nil
	}
	return "", fmt.Errorf("line %d: `%s` must be a string, got %s (quote the value)", n.Line, key, describe(n))
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for range 8 { // an alias never names another alias; bound it anyway
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			break
		}
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names a node's type for an error message.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if r := []rune(v); len(r) > 40 {
			v = string(r[:40]) + "…"
		}
		switch tag := n.ShortTag(); tag {
		case "!!str", "!!int", "!!float", "!!bool", "!!null", "!!binary", "!!timestamp":
			return fmt.Sprintf("%s %q", tag[2:], v)
		default:
			return fmt.Sprintf("a value tagged %q", tag)
		}
	}
	return "an unsupported node"
}

// yamlError flattens a yaml.v3 error to one line without the "yaml: "
// prefix, fit for a log line or skip reason.
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if te, ok := errors.AsType[*yaml.TypeError](err); ok {
		msg = strings.Join(te.Errors, "; ")
	}
	return errors.New(strings.ReplaceAll(msg, "\n", " "))
}
