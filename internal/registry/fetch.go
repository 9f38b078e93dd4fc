package registry

import (
	"context"
	"strings"
	"unicode"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
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
//
// Each distinct URI is read once, however often it is named, and the size
// of the document is checked against the response budget as the reads
// come in (docs/decisions.md D26): a request that would exceed it fails
// before the document is built, so naming a large skill a thousand times
// costs one read and no memory.
func (r *Registry) fetch(ctx context.Context, in fetchSkillInput) (string, error) {
	uris, err := fetchURIs(in)
	if err != nil {
		return "", err
	}
	count := make(map[string]int, len(uris))
	for _, uri := range uris {
		count[uri]++
	}
	// The document's bytes in flight (D64), held before anything is read
	// as far as the catalog knows the sizes, the rest once they are known.
	foreseen := 0
	for uri, n := range count {
		if u, err := Parse(uri); err == nil && u.Kind == KindSkill {
			if size, ok := r.view.BodySize(u.Key); ok {
				foreseen += n * int(size)
			}
		}
	}
	if err := iii.HoldBytes(ctx, foreseen); err != nil {
		return "", err
	}
	texts := make(map[string]string, len(count))
	// The response is one JSON string: its quotes, the separators, and per
	// uri its heading and text as they will be escaped on the wire.
	wire := 2 + (len(uris)-1)*jsonTextLen(fetchSeparator)
	size := (len(uris) - 1) * len(fetchSeparator)
	for _, uri := range uris {
		if _, done := texts[uri]; done {
			continue
		}
		_, text, err := r.read(ctx, uri)
		if err != nil {
			return "", err
		}
		text = strings.TrimRightFunc(text, unicode.IsSpace)
		texts[uri] = text
		head := "# " + uri + "\n\n"
		size += count[uri] * (len(head) + len(text))
		wire += count[uri] * (jsonTextLen(head) + jsonTextLen(text))
		if maxResponse := r.Budgets().MaxResponseBytes; wire > maxResponse {
			return "", contract.Invalidf("skill::fetch response would exceed %s (at least %s for %d uris, %d distinct); fetch fewer uris",
				formatBytes(maxResponse), formatBytes(wire), len(uris), len(count))
		}
	}
	if err := iii.HoldBytes(ctx, size-foreseen); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(size)
	for i, uri := range uris {
		if i > 0 {
			b.WriteString(fetchSeparator)
		}
		b.WriteString("# ")
		b.WriteString(uri)
		b.WriteString("\n\n")
		b.WriteString(texts[uri])
	}
	return b.String(), nil
}

// FetchURIs are the URIs a skill::fetch of uri and uris reads, in order,
// as fetch selects them; an error is what it answers instead, having read
// nothing. skills mcp checks them before it calls skill::fetch
// (docs/decisions.md D60).
func FetchURIs(uri *string, uris []string) ([]string, error) {
	return fetchURIs(fetchSkillInput{URI: uri, URIs: uris})
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
		return nil, contract.Invalidf("Provide uri or a non-empty uris array")
	}
	for _, u := range uris {
		if !strings.HasPrefix(u, Scheme) {
			return nil, contract.Invalidf("Invalid URI (must start with iii://): %s", ids.Unquoted(u))
		}
	}
	return uris, nil
}
