// Package yamlnode holds the few helpers the config and prompt-frontmatter
// parsers share for reading yaml.v3 nodes with precise error messages.
package yamlnode

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Resolve follows an alias to the node it names.
func Resolve(n *yaml.Node) *yaml.Node {
	for range 8 { // an alias never names another alias; bound it anyway
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			break
		}
		n = n.Alias
	}
	return n
}

// IsNull reports whether n is an explicit null (`~`, `null` or empty).
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// Describe names a node's type and, for scalars, its value (cut to 40
// characters) for an error message, e.g. `int "5"` or "a list".
func Describe(n *yaml.Node) string {
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
