package registry

import (
	"context"
	"strings"
	"unicode"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
)

type fetchSkillInput struct {
	URI  *string  `json:"uri,omitempty" jsonschema_description:"A single iii:// URI to read. Must start with \"iii://\"."`
	URIs []string `json:"uris,omitempty" jsonschema_description:"Multiple iii:// URIs to read and concatenate into one response. Wins over uri when non-empty."`
	// Base is additive (docs/decisions.md D70): without it a request is 0.2's.
	// After is additive: catalog.After (docs/decisions.md D78).
	After catalog.After `json:"after,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): a version a write answered with, or a list of them; the answer includes those writes or newer values."`
	Base  *string       `json:"base,omitempty" jsonschema_description:"To follow links written in a document: the iii:// URI of that document (the '# iii://…' heading it came under). Then each of uri/uris may be a link exactly as written there (references/x.md, ./x.md, ../other-skill/SKILL.md, {baseDir}/scripts/x.py, #section) and is read as the document it names, under a heading with its resolved iii:// URI."`
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
	if in.Base != nil {
		if base := strings.TrimSpace(*in.Base); base != "" {
			in.Base = &base
		} else {
			in.Base = nil // a blank base is none, as blank uris are
		}
	}
	uris, err := fetchURIs(in)
	if err != nil {
		return "", err
	}
	if err := r.view.ReadAfter(ctx, in.After); err != nil {
		return "", err
	}
	written := uris // as the caller wrote them, for errors
	if in.Base != nil {
		if uris, err = r.resolveLinks(ctx, *in.Base, uris); err != nil {
			return "", err
		}
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
	named := make(map[string]URI, len(count)) // what each uri read, for the usage counts (D84)
	// The response is one JSON string: its quotes, the separators, and per
	// uri its heading and text as they will be escaped on the wire.
	wire := 2 + (len(uris)-1)*jsonTextLen(fetchSeparator)
	size := (len(uris) - 1) * len(fetchSeparator)
	for i, uri := range uris {
		if _, done := texts[uri]; done {
			continue
		}
		_, text, read, err := r.read(ctx, uri)
		if err != nil {
			if written[i] != uri {
				err = linkNotFound(err, written[i], *in.Base, uri)
			}
			return "", err
		}
		text = strings.TrimRightFunc(text, unicode.IsSpace)
		texts[uri] = text
		named[uri] = read
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
	for _, read := range named { // once per answer, however often named (D84)
		r.noteRead(ctx, read, stageFetched)
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
	uris := FetchEntries(in.URI, in.URIs)
	if len(uris) == 0 {
		return nil, contract.Invalidf("Provide uri or a non-empty uris array")
	}
	if in.Base != nil {
		return uris, nil // links, each resolved against base (links.go)
	}
	for _, u := range uris {
		if !strings.HasPrefix(u, Scheme) {
			return nil, contract.Invalidf("Invalid URI (must start with iii://): %s", ids.Unquoted(u))
		}
	}
	return uris, nil
}

// FetchEntries are the entries of uri and uris that skill::fetch takes,
// in order, before any check: a non-empty uris wins, else uri, each
// trimmed, blanks dropped. skills mcp looks among them for sections
// written in full when links come with a base.
func FetchEntries(uri *string, uris []string) []string {
	picked := uris
	if len(picked) == 0 && uri != nil {
		picked = []string{*uri}
	}
	entries := make([]string, 0, len(picked))
	for _, u := range picked {
		if u = strings.TrimSpace(u); u != "" {
			entries = append(entries, u)
		}
	}
	return entries
}
