// Package requires reads what a skill needs of the live engine
// (docs/decisions.md D85): the functions behind its iii://fn/… links, and
// what its frontmatter declares, in either of two forms:
//
//	requires:
//	  functions: [acme::status, acme::refund]
//	  skills: [billing/refunds]
//
// or, for a skill that must pass the Agent Skills specification's
// validators (which know six frontmatter fields, `metadata` among them, and
// whose `metadata` maps strings to strings), the same lists under
// `metadata`, separated by spaces or commas:
//
//	metadata:
//	  iii-requires-functions: acme::status acme::refund
//	  iii-requires-skills: billing/refunds
//
// Both forms may appear; their entries are merged. Of reads the text once
// and never fails: an entry that is not a valid function id or skill id is
// a Problem naming it, and the rest still count.
package requires

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/skillmd"
	"github.com/iii-hq/skills-go/internal/yamlnode"
)

// Frontmatter keys read.
const (
	KeyRequires          = "requires"
	KeyMetadata          = "metadata"
	KeyMetadataFunctions = "iii-requires-functions"
	KeyMetadataSkills    = "iii-requires-skills"
)

// SectionPrefix starts a link to a function-backed section.
const SectionPrefix = "iii://fn/"

// Limits: entries kept per list, and the bytes of one function id.
const (
	MaxEntries       = 64
	MaxFunctionBytes = 256
)

// Set is what one skill requires.
type Set struct {
	// Functions are the function ids (a::b) its iii://fn links name and
	// its frontmatter declares, sorted, once each.
	Functions []string
	// Skills are the skill ids its frontmatter declares, sorted, once each.
	Skills []string
	// Problems are the declared entries that were not used, each naming
	// the entry and what is allowed.
	Problems []string
}

// Empty reports whether s requires nothing and found nothing wrong.
func (s *Set) Empty() bool {
	return s == nil || len(s.Functions)+len(s.Skills)+len(s.Problems) == 0
}

// Of reads text, a whole skill (frontmatter included) or a stored body.
// It returns nil when the skill requires nothing and declares nothing
// wrong, so most skills cost no allocation.
func Of(text string) *Set {
	var s Set
	front, body, ok := skillmd.SplitFrontmatter(unsafe.Slice(unsafe.StringData(text), len(text)))
	if ok && (containsString(front, KeyRequires) || containsString(front, KeyMetadataFunctions) || containsString(front, KeyMetadataSkills)) {
		s.declared(slices.Clone(front))
	}
	s.links(unsafe.String(unsafe.SliceData(body), len(body)))
	if s.Empty() {
		return nil
	}
	out := Set{Functions: sortedOnce(s.Functions), Skills: sortedOnce(s.Skills), Problems: s.Problems}
	return &out // s itself stays on the stack for the skills that require nothing
}

func containsString(b []byte, sub string) bool {
	return strings.Contains(unsafe.String(unsafe.SliceData(b), len(b)), sub)
}

// links adds the function of each iii://fn/… link of body whose path is
// valid: segments of [a-z0-9_-] joined by '/', ending at the first byte
// that cannot be in one (a ')', a space, a '#', a quote). A link that does
// not parse is text, not a dependency, and is not a problem.
func (s *Set) links(body string) {
	for rest := body; ; {
		i := strings.Index(rest, SectionPrefix)
		if i < 0 {
			return
		}
		rest = rest[i+len(SectionPrefix):]
		end := 0
		for end < len(rest) && pathByte(rest[end]) {
			end++
		}
		path := strings.TrimSuffix(rest[:end], "/")
		rest = rest[end:]
		if id, ok := sectionFunction(path); ok && len(s.Functions) < MaxEntries {
			s.Functions = append(s.Functions, id)
		}
	}
}

func pathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '/'
}

// sectionFunction is the function an iii://fn/ path names (a/b → a::b),
// as the registry's URI parser reads it.
func sectionFunction(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	for seg := range strings.SplitSeq(path, "/") {
		if ids.ValidateSegment(seg) != nil {
			return "", false
		}
	}
	return strings.ReplaceAll(path, "/", "::"), true
}

// declared reads the frontmatter's two forms. yaml.v3 has panicked on
// hostile input before; a bad block declares nothing.
func (s *Set) declared(front []byte) {
	defer func() {
		if recover() != nil {
			s.Functions, s.Skills = nil, nil
			s.Problems = []string{"the frontmatter could not be read"}
		}
	}()
	var root yaml.Node
	if yaml.Unmarshal(front, &root) != nil || len(root.Content) == 0 {
		return
	}
	m := yamlnode.Resolve(root.Content[0])
	if m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case KeyRequires:
			s.requiresBlock(yamlnode.Resolve(m.Content[i+1]))
		case KeyMetadata:
			s.metadataBlock(yamlnode.Resolve(m.Content[i+1]))
		}
	}
}

// requiresBlock reads `requires: {functions: [...], skills: [...]}`.
func (s *Set) requiresBlock(v *yaml.Node) {
	if yamlnode.IsNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		s.problem("`requires` must be a mapping with `functions` and `skills` lists, got %s", yamlnode.Describe(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, list := v.Content[i].Value, yamlnode.Resolve(v.Content[i+1])
		switch key {
		case "functions", "skills":
			s.list("requires."+key, list, key == "functions")
		default:
			s.problem("`requires.%s` is not read: `requires` holds `functions` and `skills`", clip(key))
		}
	}
}

// list adds each entry of a YAML sequence under key.
func (s *Set) list(key string, v *yaml.Node, functions bool) {
	if yamlnode.IsNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		s.problem("`%s` must be a list of %s, got %s", key, what(functions), yamlnode.Describe(v))
		return
	}
	for i, e := range v.Content {
		e = yamlnode.Resolve(e)
		if e.Kind != yaml.ScalarNode || e.ShortTag() != "!!str" {
			s.problem("`%s[%d]` must be a string, a %s, got %s", key, i, one(functions), yamlnode.Describe(e))
			continue
		}
		s.entry(fmt.Sprintf("%s[%d]", key, i), e.Value, functions)
	}
}

// metadataBlock reads the two iii-requires-* keys of `metadata`, strings
// of entries separated by spaces or commas.
func (s *Set) metadataBlock(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		return // not ours to judge: the Agent Skills validators do
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		key := v.Content[i].Value
		if key != KeyMetadataFunctions && key != KeyMetadataSkills {
			continue
		}
		val := yamlnode.Resolve(v.Content[i+1])
		functions := key == KeyMetadataFunctions
		if val.Kind != yaml.ScalarNode || val.ShortTag() != "!!str" {
			s.problem("`metadata.%s` must be a string of %s separated by spaces or commas, got %s", key, what(functions), yamlnode.Describe(val))
			continue
		}
		for j, e := range strings.FieldsFunc(val.Value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
			s.entry(fmt.Sprintf("metadata.%s entry %d", key, j+1), e, functions)
		}
	}
}

// entry adds one declared function or skill id, or a problem naming it.
func (s *Set) entry(where, value string, function bool) {
	value = strings.TrimSpace(value)
	if function {
		if p := CheckFunctionID(value); p != "" {
			s.problem("`%s` %s, got %s", where, p, ids.Quote(clip(value)))
			return
		}
		if len(s.Functions) < MaxEntries {
			s.Functions = append(s.Functions, value)
		}
		return
	}
	if err := ids.ValidateSkillID(value); err != nil {
		s.problem("`%s` is not a skill id: %s", where, err)
		return
	}
	if len(s.Skills) < MaxEntries {
		s.Skills = append(s.Skills, value)
	}
}

// CheckFunctionID returns what is wrong with a declared function id, or
// "": 1 to 256 bytes of parts joined by "::", each part letters, digits,
// '_', '-' or '.' (iii's function ids, such as acme::status or
// api.v2::get).
func CheckFunctionID(id string) string {
	if id == "" || len(id) > MaxFunctionBytes {
		return fmt.Sprintf("must be a function id of 1 to %d bytes", MaxFunctionBytes)
	}
	for part := range strings.SplitSeq(id, "::") {
		if part == "" || strings.IndexFunc(part, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
		}) >= 0 {
			return "must be a function id: parts of letters, digits, '_', '-' or '.' joined by \"::\" (such as acme::status)"
		}
	}
	return ""
}

func one(functions bool) string {
	if functions {
		return "function id"
	}
	return "skill id"
}

func what(functions bool) string {
	if functions {
		return "function ids"
	}
	return "skill ids"
}

// problem records one, within MaxEntries.
func (s *Set) problem(format string, args ...any) {
	if len(s.Problems) < MaxEntries {
		s.Problems = append(s.Problems, fmt.Sprintf(format, args...))
	}
}

// clip bounds a value quoted in a problem.
func clip(v string) string { return ids.Clip(v) }

// sortedOnce sorts ids and drops repeats; nil stays nil.
func sortedOnce(ids []string) []string {
	slices.Sort(ids)
	return slices.Compact(ids)
}
