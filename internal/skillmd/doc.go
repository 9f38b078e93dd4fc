// Package skillmd reads a skill's markdown the one way every origin is
// read (docs/decisions.md D31, D47): a leading YAML frontmatter block is
// split off, its name and description are taken when they are strings,
// and the title and index description come from the body after it. A
// skill registered over the bus, matched by a glob or found under a root
// is parsed by the same function.
package skillmd

import (
	"slices"
	"strings"
	"unsafe"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/yamlnode"
)

// Doc is a skill's markdown, parsed.
type Doc struct {
	// Name and Description are the frontmatter's, trimmed; "" when the
	// block is absent, is not a mapping, or holds no string there.
	Name, Description string
	// Body is the text after the frontmatter block (all of it without one).
	Body string
	// Front reports whether a frontmatter block was split off.
	Front bool
}

// Parse splits and reads text. It never fails: a block that does not
// parse still ends at its closing fence, and lends no fields.
func Parse(text string) Doc {
	// SplitFrontmatter only reads: it sees text's own bytes, not a copy of
	// every body parsed (docs/decisions.md D77).
	front, body, ok := SplitFrontmatter(unsafe.Slice(unsafe.StringData(text), len(text)))
	if !ok {
		return Doc{Body: text}
	}
	d := Doc{Body: text[len(text)-len(body):], Front: true}
	d.Name, d.Description = frontFields(slices.Clone(front)) // the YAML parser gets bytes of its own
	return d
}

// frontFields reads the string name and description of a frontmatter
// block, leniently: a listing never fails on a skill's metadata (the
// diagnostics of a root's SKILL.md say what is wrong with it). It reads
// the node tree, so aliases are never expanded.
func frontFields(front []byte) (name, description string) {
	defer func() {
		// yaml.v3 has panicked on hostile input in the past; a bad
		// body must never take the worker down.
		if recover() != nil {
			name, description = "", ""
		}
	}()
	var root yaml.Node
	if yaml.Unmarshal(front, &root) != nil || len(root.Content) == 0 {
		return "", ""
	}
	m := yamlnode.Resolve(root.Content[0])
	if m.Kind != yaml.MappingNode {
		return "", ""
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], yamlnode.Resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
			continue
		}
		switch k.Value {
		case "name":
			if name == "" {
				name = strings.TrimSpace(v.Value)
			}
		case "description":
			if description == "" {
				description = strings.TrimSpace(v.Value)
			}
		}
	}
	return name, description
}

// Summary is how a skill shows in the index, listings and search
// results: its title and the start of its description.
type Summary struct {
	Title string
	// Desc is the description, cut to MaxDescriptionRunes characters
	// (Cut says it was longer: readers add Ellipsis); HasDesc is false
	// when the skill has none.
	Desc         string
	Cut, HasDesc bool
}

// Summarize is the summary of the skill id with doc d: the title is the
// body's first "# " heading, else the frontmatter name, else the id; the
// description is the frontmatter's (its whitespace folded), else the
// body's first paragraph (docs/reference.md#title-and-description).
func Summarize(id string, d Doc) Summary {
	fallback := id
	if d.Name != "" {
		fallback = d.Name
	}
	s := Summary{Title: TitleOr(d.Body, fallback)}
	if d.Description != "" {
		s.Desc, s.Cut = CutRunes(strings.Join(strings.Fields(d.Description), " "), MaxDescriptionRunes)
		s.HasDesc = true
		return s
	}
	s.Desc, s.Cut, s.HasDesc = FirstParagraph(d.Body)
	return s
}

// Description is the summary's description as a reader sees it, with the
// ellipsis of a cut one.
func (s Summary) Description() string {
	if s.Cut {
		return s.Desc + Ellipsis
	}
	return s.Desc
}
