package registry

import (
	"context"
	"errors"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/paging"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// The MCP resource envelopes, produced here and forwarded verbatim by the
// mcp worker (docs/reference.md#the-mcp-worker).

type readResourceInput struct {
	// URI is a pointer so that an absent or null uri ("missing field")
	// reads differently from an empty one (the reference's parse error).
	URI *string `json:"uri" jsonschema:"required" jsonschema_description:"The iii:// URI to read: iii://skills, iii://{skill_id} or iii://fn/{function_path}."`
	// After is additive: catalog.After (docs/decisions.md D78).
	After catalog.After `json:"after,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): a version a write answered with, or a list of them; the answer includes those writes or newer values."`
}

type readResourceOutput struct {
	Contents []resourceContent `json:"contents"`
}

type resourceContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

type resourcesListOutput struct {
	Resources  []resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

type resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType"`
	// MCP 2025-11-25 fields, additive (docs/decisions.md D41): the display
	// title, the size in bytes, and when it last changed.
	Title       string               `json:"title,omitempty"`
	Size        *int64               `json:"size,omitempty"`
	Annotations *resourceAnnotations `json:"annotations,omitempty"`
	// Meta is MCP's _meta: only on a skill the content checks flagged,
	// under lint.flagged: note, its notes at contract.MetaKeyLint
	// (docs/decisions.md D65); absent everywhere else.
	Meta map[string]any `json:"_meta,omitempty" jsonschema_description:"Only on entries the content checks flagged, under lint.flagged: note: dev.iii.skills/lint, each rule and the line it flagged. skills::diagnostics has the details."`
}

type resourceAnnotations struct {
	LastModified string `json:"lastModified,omitempty"`
}

// skillResource is a skill's entry in resources-list: the 0.2 keys, the
// description the index shows (frontmatter description, else the first
// paragraph; additive, for MCP clients), then D41's fields and, on a
// flagged skill under lint.flagged: note, meta (D65).
func skillResource(id string, sum skillmd.Summary, size int64, lastModified string, meta map[string]any) resource {
	r := resource{URI: Scheme + id, Name: sum.Title, Description: sum.Description(), MimeType: mediaType(id), Title: sum.Title, Size: &size, Meta: meta}
	if lastModified != "" {
		r.Annotations = &resourceAnnotations{LastModified: lastModified}
	}
	return r
}

type resourceTemplatesOutput struct {
	ResourceTemplates []resourceTemplate `json:"resourceTemplates"`
}

type resourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
}

// indexResource is always the first entry of resources/list.
var indexResource = resource{URI: IndexURI, Name: "skills", Description: "Index of every registered skill", MimeType: contract.MIMEMarkdown}

// resourceTemplates is the constant resources/templates/list envelope.
var resourceTemplates = []resourceTemplate{
	{
		URITemplate: "iii://{skill_id}",
		Name:        "Skill",
		Description: "Markdown body of a registered skill (1+ segments separated by '/')",
		MimeType:    contract.MIMEMarkdown,
	},
	{
		URITemplate: "iii://fn/{function_path}",
		Name:        "Skill section",
		Description: "Trigger the function at `function_path` (each '/' becomes '::') with empty input and serve its output. e.g. `iii://fn/scope/echo` triggers `scope::echo`.",
		MimeType:    contract.MIMEMarkdown,
	},
}

func (r *Registry) resourcesList(ctx context.Context, in listInput) (resourcesListOutput, error) {
	if err := r.view.ReadAfter(ctx, in.After); err != nil {
		return resourcesListOutput{}, err
	}
	out, err := r.allResources(ctx)
	pageSize := r.Budgets().PageSize
	if err != nil || pageSize == 0 {
		if err == nil {
			r.noteListedResources(out.Resources) // D84
		}
		return out, err
	}
	keys := make([]string, len(out.Resources))
	for i, res := range out.Resources {
		keys[i] = res.URI
	}
	start, end, next, err := paging.Cut("resources", keys, in.Cursor, pageSize)
	if err != nil {
		return resourcesListOutput{}, err
	}
	r.noteListedResources(out.Resources[start:end]) // D84
	return resourcesListOutput{Resources: out.Resources[start:end], NextCursor: next}, nil
}

// allResources is the whole resources-list, rendered once per catalog
// version and overlay snapshot, like the index (D19).
func (r *Registry) allResources(ctx context.Context) (resourcesListOutput, error) {
	l, err := r.skillListing(ctx)
	if err != nil {
		// The index entry and the fs entries are still worth listing.
		r.log.Warn("resources-list: state unavailable, listing fs skills only", zap.Error(err))
	}
	version, cacheable := l.Version()
	if cacheable {
		if out, ok := r.resourcesCache.get(version); ok {
			return out, nil
		}
	}
	out := resourcesListOutput{Resources: make([]resource, 0, 1+len(l.Skills))}
	out.Resources = append(out.Resources, indexResource)
	// Stored skills first, then files, each sorted by id, as 0.2 lists them.
	for _, origin := range []string{originState, originFS} {
		for _, s := range l.Skills {
			if s.Origin == origin {
				out.Resources = append(out.Resources, skillResource(s.ID, s.Summary, s.Size, s.RegisteredAt, catalog.WithUnavailable(r.view.LintMeta(s.Lint), s.Unavailable)))
			}
		}
	}
	if cacheable {
		r.resourcesCache.put(version, out)
	}
	return out, nil
}

func (r *Registry) resourcesRead(ctx context.Context, in readResourceInput) (readResourceOutput, error) {
	if in.URI == nil {
		return readResourceOutput{}, contract.Invalidf("missing field `uri`: pass the iii:// URI to read, e.g. iii://skills or iii://{skill_id}")
	}
	uri := *in.URI
	mime, text, read, err := r.read(ctx, uri)
	if err != nil {
		return readResourceOutput{}, err
	}
	r.noteRead(ctx, read, stageRead) // D84
	return readResourceOutput{Contents: []resourceContent{{URI: uri, MimeType: mime, Text: text}}}, nil
}

func (r *Registry) resourcesTemplates(context.Context, emptyInput) (resourceTemplatesOutput, error) {
	return resourceTemplatesOutput{ResourceTemplates: slices.Clone(resourceTemplates)}, nil
}

// read resolves an iii:// URI (docs/reference.md#uri-resolution), or one
// written as a link by what it names (links.go); read is what it named,
// for the usage counts (D84).
func (r *Registry) read(ctx context.Context, uri string) (mime, text string, read URI, err error) {
	target, linked, err := readTarget(uri)
	if err != nil {
		return "", "", URI{}, err
	}
	mime, text, read, err = r.readURI(ctx, target)
	if linked {
		err = linkNotFound(err, uri, "", target)
	}
	return mime, text, read, err
}

// readURI reads an iii:// URI as 0.2 does, and says what it named.
func (r *Registry) readURI(ctx context.Context, uri string) (mime, text string, u URI, err error) {
	u, err = Parse(uri)
	if err != nil {
		return "", "", URI{}, err
	}
	mime, text, err = r.readOf(ctx, u)
	return mime, text, u, err
}

// readOf reads what the parsed URI u names.
func (r *Registry) readOf(ctx context.Context, u URI) (mime, text string, err error) {
	switch u.Kind {
	case KindIndex:
		text := r.index(ctx)
		return contract.MIMEMarkdown, text, iii.HoldBytes(ctx, len(text))
	case KindSection:
		mime, text, err := r.section(ctx, u.FunctionID)
		if err == nil {
			err = iii.HoldBytes(ctx, len(text))
		}
		return mime, text, err
	default:
		body, err := r.skillBody(ctx, u.Key)
		return mediaType(u.Key), body, err
	}
}

// skillBody returns the body the view serves for key (the state row
// first, then the file with that id, catalog.View.Body). A key that is
// neither a skill id nor a root file's id (ids.FileID, D69) names nothing,
// so it is simply not found (docs/decisions.md D3). A key that is not found but reads as a link to
// a markdown file written the way Agent Skills write them (a SKILL.md
// links `references/pitr.md`, an agent reads iii://pg-restore/references/pitr.md)
// is served by the id that file has: without ".md", and a SKILL.md by its
// folder's id.
func (r *Registry) skillBody(ctx context.Context, key string) (string, error) {
	body, err := r.skillBodyOf(ctx, key)
	if alt, ok := fileLinkID(key); ok && isNotFound(err) {
		if body, altErr := r.skillBodyOf(ctx, alt); !isNotFound(altErr) {
			return body, altErr
		}
	}
	return body, r.withSkipReason(ctx, key, err)
}

func (r *Registry) skillBodyOf(ctx context.Context, key string) (string, error) {
	if ids.ValidateSkillID(key) != nil && ids.ValidateFilePath(key) != nil {
		return "", skillNotFound(key)
	}
	// The body's bytes in flight (D64): held before it is read when the
	// catalog knows its size, else once it is read.
	size, sized := r.view.BodySize(key)
	if sized {
		if err := iii.HoldBytes(ctx, int(size)); err != nil {
			return "", err
		}
	}
	body, found, err := r.view.Body(ctx, key)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "", skillNotFound(key)
	case !sized:
		if err := iii.HoldBytes(ctx, len(body)); err != nil {
			return "", err
		}
	}
	r.view.NoteRead(key)
	return body, nil
}

// fileLinkID is the id a relative link to a markdown file names: the path
// without ".md", or for .../SKILL.md the folder's id. ok is false for a
// key that is not such a link.
func fileLinkID(key string) (string, bool) {
	dir, base := "", key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		dir, base = key[:i], key[i+1:]
	}
	switch {
	case base == "SKILL.md":
		return dir, dir != ""
	case strings.HasSuffix(base, ".md") && len(base) > len(".md"):
		return strings.TrimSuffix(key, ".md"), true
	}
	return "", false
}

// isNotFound reports whether err is the registry's not_found error.
func isNotFound(err error) bool {
	ce, ok := errors.AsType[*contract.Error](err)
	return ok && ce.Code == contract.CodeNotFound
}

// skillNotFound answers a read of an unregistered key. A key with "::" is
// almost always a v0.1 link (iii://x/worker::fn), so the message says how
// such links are written now.
func skillNotFound(key string) *contract.Error {
	if !strings.Contains(key, "::") {
		return contract.NotFoundf("Skill not found: %s", ids.Unquoted(key))
	}
	fn := key
	if _, after, ok := strings.Cut(key, "/"); ok {
		fn = after // v0.1 links were iii://{skill}/{function_id}
	}
	return contract.NotFoundf("Skill not found: %s (function links are written %s since v0.2.0)", ids.Unquoted(key), ids.Unquoted(SectionURI(fn)))
}
