package yamlnode

import (
	"math"

	"gopkg.in/yaml.v3"
)

// JSON renders a YAML node as the value encoding/json writes for it, so a
// document's frontmatter can be passed on as a JSON object. Strings,
// numbers, booleans and null keep their type; timestamps, binary and
// values with a custom tag keep the text the author wrote, as does a
// number JSON cannot hold (.inf, .nan). Mapping keys become their text;
// a later duplicate key wins, as with yaml.v3's decoding; a merge key
// ("<<") is kept as an ordinary key.
func JSON(n *yaml.Node) any {
	return toJSON(n, 0)
}

// maxDepth bounds nesting, so a hostile document cannot exhaust the
// stack; anything deeper becomes null.
const maxDepth = 64

func toJSON(n *yaml.Node, depth int) any {
	if n == nil || depth > maxDepth {
		return nil
	}
	n = Resolve(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return toJSON(n.Content[0], depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[Resolve(n.Content[i]).Value] = toJSON(n.Content[i+1], depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			s = append(s, toJSON(c, depth+1))
		}
		return s
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil
}

func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}
