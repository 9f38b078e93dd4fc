package yamlnode

import (
	"errors"
	"math"

	"gopkg.in/yaml.v3"
)

// The bounds of what JSON writes. yaml.v3 keeps an alias as a reference to
// the node it names, so a small document can name a large value many
// times over ("billion laughs"); JSON copies it every time, so it counts
// what it writes and stops past these.
const (
	maxDepth = 64       // levels of nesting
	maxNodes = 100_000  // values written, copies through aliases included
	maxBytes = 16 << 20 // bytes of keys and scalars written
)

// ErrTooLarge is a document that would expand past JSON's bounds.
var ErrTooLarge = errors.New("the YAML expands past 100,000 values or 16 MiB (aliases count each time they are used)")

// JSON renders a YAML node as the value encoding/json writes for it, so a
// document's frontmatter can be passed on as a JSON object. Strings,
// numbers, booleans and null keep their type; timestamps, binary and
// values with a custom tag keep the text the author wrote, as does a
// number JSON cannot hold (.inf, .nan). Mapping keys become their text;
// a later duplicate key wins, as with yaml.v3's decoding; a merge key
// ("<<") is kept as an ordinary key. Nesting past 64 levels becomes null;
// a document that would expand past 100,000 values or 16 MiB is
// ErrTooLarge.
func JSON(n *yaml.Node) (any, error) {
	var b budget
	v := b.toJSON(n, 0)
	if b.over {
		return nil, ErrTooLarge
	}
	return v, nil
}

type budget struct {
	nodes, bytes int
	over         bool
}

func (b *budget) spend(bytes int) bool {
	b.nodes++
	b.bytes += bytes
	if b.nodes > maxNodes || b.bytes > maxBytes {
		b.over = true
	}
	return !b.over
}

func (b *budget) toJSON(n *yaml.Node, depth int) any {
	if n == nil || depth > maxDepth || b.over {
		return nil
	}
	n = Resolve(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return b.toJSON(n.Content[0], depth+1)
	case yaml.MappingNode:
		if !b.spend(0) {
			return nil
		}
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content) && !b.over; i += 2 {
			key := Resolve(n.Content[i]).Value
			if !b.spend(len(key)) {
				return nil
			}
			m[key] = b.toJSON(n.Content[i+1], depth+1)
		}
		return m
	case yaml.SequenceNode:
		if !b.spend(0) {
			return nil
		}
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			if b.over {
				return nil
			}
			s = append(s, b.toJSON(c, depth+1))
		}
		return s
	case yaml.ScalarNode:
		if !b.spend(len(n.Value)) {
			return nil
		}
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
