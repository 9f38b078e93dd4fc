package registry

import (
	"context"
	"strings"
	"unicode"

	"github.com/iii-hq/skills-go/internal/ids"
)

type fetchSkillInput struct {
	URI  *string  `json:"uri,omitempty" jsonschema_description:"A single iii:// URI to read. Must start with \"iii://\"."`
	URIs []string `json:"uris,omitempty" jsonschema_description:"Multiple iii:// URIs to read and concatenate into one response. Wins over uri when non-empty."`
}

// fetchSeparator joins the sections of a batched fetch.
const fetchSeparator = "\n\n---\n\n"

// fetch reads one or more iii:// URIs in order and returns one markdown
// document: "# <uri>\n\n<text>" per URI (text without trailing
// whitespace), joined by "\n\n---\n\n". The first failing read fails the
// whole call, unchanged, so an agent never gets a partial answer.
func (r *Registry) fetch(ctx context.Context, in fetchSkillInput) (string, error) {
	uris, err := fetchURIs(in)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, uri := range uris {
		_, text, err := r.read(ctx, uri)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString(fetchSeparator)
		}
		b.WriteString("# ")
		b.WriteString(uri)
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRightFunc(text, unicode.IsSpace))
	}
	return b.String(), nil
}

// fetchURIs selects what to read (docs/decisions.md D7): a non-empty uris wins,
// else uri. Entries are trimmed and blanks dropped (a uris of blanks does
// not fall back to uri), and every entry is checked for the scheme before
// anything is read.
func fetchURIs(in fetchSkillInput) ([]string, error) {
	picked := in.URIs
	if len(picked) == 0 && in.URI != nil {
		picked = []string{*in.URI}
	}
	uris := make([]string, 0, len(picked))
	for _, u := range picked {
		if u = strings.TrimSpace(u); u != "" {
			uris = append(uris, u)
		}
	}
	if len(uris) == 0 {
		return nil, invalidf("Provide uri or a non-empty uris array")
	}
	for _, u := range uris {
		if !strings.HasPrefix(u, Scheme) {
			return nil, invalidf("Invalid URI (must start with iii://): %s", ids.Unquoted(u))
		}
	}
	return uris, nil
}
