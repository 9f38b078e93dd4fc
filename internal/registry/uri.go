package registry

import (
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// Scheme prefixes every resource URI this worker serves.
const Scheme = contract.Scheme

// IndexURI is the auto-rendered index of every skill.
const IndexURI = Scheme + "skills"

// sectionMarker is the first path piece that turns a URI into a function
// trigger (iii://fn/a/b → a::b).
const sectionMarker = ids.ReservedFirstSegment

// Kind tells what a parsed URI points at.
type Kind int

// The three kinds of iii:// URI.
const (
	// KindIndex is iii://skills, the rendered index.
	KindIndex Kind = iota + 1
	// KindSkill is iii://{key}, a stored body (state first, then fs).
	KindSkill
	// KindSection is iii://fn/{a}/{b}/…, the output of function a::b::….
	KindSection
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindIndex:
		return "index"
	case KindSkill:
		return "skill"
	case KindSection:
		return "section"
	default:
		return "invalid"
	}
}

// URI is a parsed iii:// URI. Key is set for KindSkill, FunctionID for
// KindSection.
type URI struct {
	Kind       Kind
	Key        string
	FunctionID string
}

// Parse parses an iii:// URI (docs/reference.md#uri-parsing). A skill key is
// not validated here: a key that could never be registered simply reads as
// not found. Errors are *contract.Error with code invalid_argument and the
// reference texts.
func Parse(uri string) (URI, error) {
	rest, ok := strings.CutPrefix(uri, Scheme)
	if !ok {
		return URI{}, contract.Invalidf("Resource URI must start with iii://: %s", ids.Unquoted(uri))
	}
	if rest == "" {
		return URI{}, contract.Invalidf("Empty resource id: %s", ids.Unquoted(uri))
	}
	if rest == "skills" {
		return URI{Kind: KindIndex}, nil
	}
	if rest[0] == '/' || rest[len(rest)-1] == '/' || strings.Contains(rest, "//") {
		return URI{}, contract.Invalidf("Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): %s", ids.Unquoted(uri))
	}
	first, path, nested := strings.Cut(rest, "/")
	if first != sectionMarker {
		return URI{Kind: KindSkill, Key: rest}, nil
	}
	if !nested {
		return URI{}, contract.Invalidf("Section URI 'iii://fn' is missing a function path: expected iii://fn/{a}/{b}/...: %s", ids.Unquoted(uri))
	}
	for seg := range strings.SplitSeq(path, "/") {
		if err := ids.ValidateSegment(seg); err != nil {
			return URI{}, contract.Invalidf("invalid section URI segment %s: %s", ids.Quote(seg), err)
		}
	}
	return URI{Kind: KindSection, FunctionID: strings.ReplaceAll(path, "/", "::")}, nil
}

// SectionURI returns the iii://fn/… URI that triggers functionID, the
// inverse of Parse for ids whose '::'-separated parts are valid segments.
func SectionURI(functionID string) string {
	return Scheme + sectionMarker + "/" + strings.ReplaceAll(functionID, "::", "/")
}
