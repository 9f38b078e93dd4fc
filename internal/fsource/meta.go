package fsource

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/yamlnode"
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
	m := yamlnode.Resolve(root.Content[0])
	if yamlnode.IsNull(m) {
		return promptMeta{}, nil
	}
	if m.Kind != yaml.MappingNode {
		return promptMeta{}, fmt.Errorf("line %d: frontmatter must be a mapping of keys such as `description: …`, got %s", m.Line, yamlnode.Describe(m))
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
	n = yamlnode.Resolve(n)
	switch {
	case yamlnode.IsNull(n):
		return "", nil
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		return n.Value, nil
	}
	return "", fmt.Errorf("line %d: `%s` must be a string, got %s (quote the value)", n.Line, key, yamlnode.Describe(n))
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
