package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/paging"
	"github.com/iii-hq/skills-go/internal/skillmd"
	"github.com/iii-hq/skills-go/internal/yamlnode"
)

// The MCP Skills extension (SEP-2640; docs/decisions.md D45) as three
// internal functions that `skills mcp` forwards skills/list, skills/get
// and resources/read of skill:// URIs to. Every skill the registry serves
// is an MCP skill at skill://<id>/SKILL.md:
//
//   - a SKILL.md folder under a root is served as it is on disk: the
//     SKILL.md byte for byte, its frontmatter verbatim, and every file of
//     the folder (references, scripts, assets, nested skills) as a
//     supporting file;
//   - a registered or glob skill, which is one markdown body, is served as
//     a SKILL.md synthesised from it: frontmatter with name (the id's last
//     segment) and description (the index line's), then the body.
//
// Not served, with the reason in skills/get's error: a skill whose name
// (the id's last segment, or a folder skill's frontmatter name) is not an
// Agent Skills name or differs from its folder, and a folder past the
// extension's limits (512 files, 16 MiB). The other markdown files of a
// skill folder are files of that skill here, not skills of their own.
const (
	descMCPSkillsList = "Internal: returns the MCP Skills extension's skills/list result: every skill as skill://<id>/SKILL.md with its frontmatter and files (uri, sha256 digest, size)."
	descMCPSkillsGet  = "Internal: returns the MCP Skills extension's skills/get result for one skill://<id>/SKILL.md."
	descMCPSkillsRead = "Internal: reads one file of an MCP skill (skill://<id>/<file>) as the MCP resources/read contents envelope."

	// SkillScheme prefixes an MCP skill's file URIs.
	SkillScheme = "skill://"
	skillFile   = "SKILL.md"
)

type mcpSkillsListInput struct {
	Cursor *string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page; absent for the first page."`
	Limit  *int    `json:"limit,omitempty" jsonschema_description:"Skills per page, 1 to 100000; default: the worker's page_size, else all."`
}

// maxSkillsPage bounds a page asked for with limit.
const maxSkillsPage = 100000

type mcpSkillsGetInput struct {
	URI *string `json:"uri" jsonschema:"required" jsonschema_description:"The skill://<id>/SKILL.md URI of the skill."`
}

type mcpSkillsListOutput struct {
	Skills     []mcpSkill `json:"skills"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

type mcpSkillsGetOutput struct {
	Skill mcpSkill `json:"skill"`
}

// mcpSkill is the extension's Skill entry.
type mcpSkill struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"` // a JSON object, encoded once

	Resources []mcpSkillFile `json:"resources"`
}

// listEnvelopeBytes bounds what a listing page holds besides its entries:
// the object, the key and a nextCursor (an id of at most 1,024 bytes,
// escaped, in a cursor).
const listEnvelopeBytes = 16 << 10

// jsonBound is at least the length of the entry's JSON encoding, without
// encoding it: a page is cut by it.
func (s mcpSkill) jsonBound() int {
	n := len(`{"uri":,"frontmatter":,"resources":[]}`) + jsonStringBound(s.URI) + rawJSONBound(s.Frontmatter)
	for _, f := range s.Resources {
		n += len(`{"uri":,"digest":,"size":},`) + jsonStringBound(f.URI) + jsonStringBound(f.Digest) + 20
	}
	return n
}

// jsonStringBound is at least the length of s encoded as a JSON string by
// encoding/json: six bytes for each byte it may escape (\u003c), one for
// each other.
func jsonStringBound(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&', c >= 0x80:
			n += 6
		default:
			n++
		}
	}
	return n
}

// rawJSONBound is at least the length of raw JSON once encoding/json has
// compacted and HTML-escaped it: six bytes for <, > and &, two for each
// byte of a multi-byte character (U+2028 becomes \u2028).
func rawJSONBound(raw []byte) int {
	n := 0
	for _, c := range raw {
		switch {
		case c == '<', c == '>', c == '&':
			n += 6
		case c >= 0x80:
			n += 2
		default:
			n++
		}
	}
	return n
}

// mcpSkillFile is the extension's SkillResource: one file with the
// digest and size of its bytes.
type mcpSkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

type mcpSkillsReadContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"` // base64 on the wire, as MCP's blob
}

type mcpSkillsReadOutput struct {
	Contents []mcpSkillsReadContent `json:"contents"`
}

// skillSource is where an MCP skill's content comes from: a folder on
// disk, or one body from which its SKILL.md is synthesised.
type skillSource struct {
	id     string
	folder string // the folder of a SKILL.md under a root; "" for a body
	path   string // that SKILL.md

	// A body's parts: where it is stored (a state row, or the file at
	// path) and what the synthesised frontmatter says.
	origin      string
	textSHA     string // hex SHA-256 of a stored skill's text, from the view
	description string
	unserved    string // why the skill is not an MCP skill; "" when it is
}

func skillURI(id string) string { return SkillScheme + id + "/" + skillFile }

func (r *Registry) mcpSkillsList(ctx context.Context, in mcpSkillsListInput) (mcpSkillsListOutput, error) {
	if err := checkLimit(in.Limit, "skills"); err != nil {
		return mcpSkillsListOutput{}, err
	}
	sources, err := r.skillSources(ctx)
	if err != nil {
		return mcpSkillsListOutput{}, err
	}
	keys := make([]string, len(sources))
	for i, s := range sources {
		keys[i] = s.id
	}
	start, end, next, err := r.extensionPage("skills", keys, in.Cursor, in.Limit)
	if err != nil {
		return mcpSkillsListOutput{}, err
	}
	out := mcpSkillsListOutput{Skills: make([]mcpSkill, 0, end-start), NextCursor: next}
	// A page also ends before it would pass the response budget (D26),
	// with a cursor to the rest: a catalog of any size lists, a page at a
	// time, without page_size.
	room := r.maxResponse - listEnvelopeBytes
	for i, src := range sources[start:end] {
		entry, err := r.mcpSkillEntry(ctx, src)
		if err != nil {
			// Gone since it was listed, or past the extension's limits:
			// left out, as skills/get says why.
			continue
		}
		size := entry.jsonBound() + 1 // and a comma
		if room -= size; room < 0 && len(out.Skills) > 0 {
			out.NextCursor = paging.Cursor("skills", sources[start+i-1].id)
			break
		}
		out.Skills = append(out.Skills, entry)
	}
	if start == 0 {
		r.mcpDigests.rotate()
	}
	return out, nil
}

func (r *Registry) mcpSkillsGet(ctx context.Context, in mcpSkillsGetInput) (mcpSkillsGetOutput, error) {
	if in.URI == nil {
		return mcpSkillsGetOutput{}, contract.Invalidf("missing field `uri`: pass a skill's skill://<id>/SKILL.md URI")
	}
	id, ok := strings.CutSuffix(strings.TrimPrefix(*in.URI, SkillScheme), "/"+skillFile)
	if !strings.HasPrefix(*in.URI, SkillScheme) || !ok {
		return mcpSkillsGetOutput{}, contract.Invalidf("uri %s is not a skill's SKILL.md URI; allowed: skill://<id>/SKILL.md", ids.Quote(*in.URI))
	}
	src, err := r.skillSourceOf(ctx, id)
	if err != nil {
		return mcpSkillsGetOutput{}, err
	}
	if src.unserved != "" {
		return mcpSkillsGetOutput{}, contract.NotFoundf("%s is not served as an MCP skill: %s", ids.Quote(*in.URI), src.unserved)
	}
	entry, err := r.mcpSkillEntry(ctx, src)
	if err != nil {
		return mcpSkillsGetOutput{}, err
	}
	return mcpSkillsGetOutput{Skill: entry}, nil
}

func (r *Registry) mcpSkillsRead(ctx context.Context, in mcpSkillsGetInput) (mcpSkillsReadOutput, error) {
	if in.URI == nil {
		return mcpSkillsReadOutput{}, contract.Invalidf("missing field `uri`: pass a skill://<id>/<file> URI")
	}
	uri := *in.URI
	segs, err := skillPath(uri)
	if err != nil {
		return mcpSkillsReadOutput{}, err
	}
	notFound := contract.NotFoundf("Skill file not found: %s", ids.Unquoted(uri))
	if segs[len(segs)-1] == skillFile {
		id := strings.Join(segs[:len(segs)-1], "/")
		if src, err := r.skillSourceOf(ctx, id); err == nil && src.unserved == "" {
			var b []byte
			if src.folder != "" {
				_, b, _, err = r.folderSkill(ctx, src)
			} else {
				b, err = r.skillMD(ctx, src)
			}
			if err != nil {
				return mcpSkillsReadOutput{}, err
			}
			r.view.NoteRead(id)
			return mcpSkillsReadOutput{Contents: []mcpSkillsReadContent{{URI: uri, MimeType: contract.MIMEMarkdown, Text: string(b)}}}, nil
		} else if err != nil && !isNotFound(err) {
			return mcpSkillsReadOutput{}, err
		}
	}
	// A supporting file: of the nearest enclosing folder skill.
	if src, k, ok := r.enclosingFolderSkill(ctx, segs, len(segs)-1); ok {
		rel := strings.Join(segs[k:], "/")
		files, _, _, err := r.folderSkill(ctx, src)
		if err != nil {
			return mcpSkillsReadOutput{}, err
		}
		for _, f := range files {
			if f.Rel != rel {
				continue
			}
			b, err := r.fs.ReadBytes(f.Path)
			if errors.Is(err, fsource.ErrEscaped) {
				return mcpSkillsReadOutput{}, notFound
			}
			if err != nil {
				return mcpSkillsReadOutput{}, contract.UnavailableMsg(fmt.Errorf("read %s: %w", f.Path, err))
			}
			return mcpSkillsReadOutput{Contents: []mcpSkillsReadContent{fileContent(uri, rel, b)}}, nil
		}
		return mcpSkillsReadOutput{}, notFound
	}
	return mcpSkillsReadOutput{}, notFound
}

// enclosingFolderSkill finds the folder skill nearest to the path segs,
// among its first deepest prefixes: the skill and k, the number of
// segments its id takes. A prefix that state or a glob shadows, or that
// is not served, is passed over: its folder's files are still the
// enclosing skill's. The candidates come from the overlay's listing, so
// a deep hostile URI costs no state lookups.
func (r *Registry) enclosingFolderSkill(ctx context.Context, segs []string, deepest int) (src skillSource, k int, ok bool) {
	folders := map[string]bool{}
	fsSkills, _ := r.fsSkills(ctx)
	for _, s := range fsSkills {
		if s.Root != "" && s.SkillFile {
			folders[s.ID] = true
		}
	}
	for k := deepest; k >= 1; k-- {
		id := strings.Join(segs[:k], "/")
		if !folders[id] {
			continue
		}
		if src, err := r.skillSourceOf(ctx, id); err == nil && src.folder != "" && src.unserved == "" {
			return src, k, true
		}
	}
	return skillSource{}, 0, false
}

// fileContent is a supporting file's contents entry: text when it is
// UTF-8, else a blob.
func fileContent(uri, rel string, b []byte) mcpSkillsReadContent {
	mime := mimeOf(rel, b)
	if utf8.Valid(b) {
		return mcpSkillsReadContent{URI: uri, MimeType: mime, Text: string(b)}
	}
	return mcpSkillsReadContent{URI: uri, MimeType: mime, Blob: b}
}

// maxSkillURI bounds a skill:// URI, listed or asked for: 32 levels of
// 255-byte names, percent-encoded, fit.
const maxSkillURI = 32 << 10

// skillPath checks a skill:// URI and splits its path into segments,
// percent-decoded: a listed file's name is percent-encoded in its URI
// (fileURI), so every name a URI can carry reads back.
func skillPath(uri string) ([]string, error) {
	rest, ok := strings.CutPrefix(uri, SkillScheme)
	bad := func(why string) error {
		return contract.Invalidf("uri %s %s; allowed: skill://<id>/<file>, each segment percent-encoded, e.g. skill://pdf/SKILL.md", ids.Quote(uri), why)
	}
	switch {
	case !ok:
		return nil, bad("does not start with skill://")
	case len(uri) > maxSkillURI:
		return nil, bad(fmt.Sprintf("is longer than %d bytes", maxSkillURI))
	case strings.ContainsAny(rest, "\\?#") || strings.ContainsFunc(rest, isControl):
		return nil, bad("holds a backslash, ?, # or a control character")
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 2 {
		return nil, bad("names no file")
	}
	for i, raw := range segs {
		seg, err := url.PathUnescape(raw)
		if err != nil {
			return nil, bad("has a malformed percent-escape")
		}
		if !servableName(seg) {
			return nil, bad("has an empty, . or .. segment, or one that decodes to a /, a backslash, a control character or bytes that are not UTF-8")
		}
		segs[i] = seg
	}
	return segs, nil
}

func isControl(c rune) bool { return c < 0x20 || c == 0x7f }

// servableName reports whether a file or folder name can be a segment of
// a skill:// URI: anything but the empty name, . and .., and names with a
// /, a backslash (a separator on Windows), a control character or bytes
// that are not UTF-8. A file whose path has another name is not listed.
func servableName(seg string) bool {
	return seg != "" && seg != "." && seg != ".." && utf8.ValidString(seg) &&
		!strings.ContainsAny(seg, "/\\") && !strings.ContainsFunc(seg, isControl)
}

// fileURI is the skill:// URI of a file of skill id, each segment of its
// path percent-encoded; ok is false when the path has a name no URI
// carries, or the URI would be too long to read back.
func fileURI(id, rel string) (uri string, ok bool) {
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		if !servableName(seg) {
			return "", false
		}
		segs[i] = url.PathEscape(seg)
	}
	uri = SkillScheme + id + "/" + strings.Join(segs, "/")
	return uri, len(uri) <= maxSkillURI
}

// skillSources are the registry's skills in id order, as MCP skills: the
// state rows, then the overlay's skills state does not shadow, less the
// non-SKILL.md files of root folders and the skills that cannot be served.
func (r *Registry) skillSources(ctx context.Context) ([]skillSource, error) {
	l, err := r.skillListing(ctx)
	if err != nil {
		return nil, err
	}
	served := make([]skillSource, 0, len(l.Skills))
	for _, sk := range l.Skills {
		if src, ok := r.viewSkillSource(sk); ok && src.unserved == "" {
			served = append(served, src)
		}
	}
	return served, nil
}

func sortSources(s []skillSource) {
	slices.SortFunc(s, func(a, b skillSource) int { return strings.Compare(a.id, b.id) })
}

// checkLimit checks the limit a caller gave a listing of the extension's.
func checkLimit(limit *int, unit string) error {
	if limit != nil && (*limit < 1 || *limit > maxSkillsPage) {
		return contract.Invalidf("limit %d is out of range; allowed: 1 to %d %s a page", *limit, maxSkillsPage, unit)
	}
	return nil
}

// extensionPage cuts one page of an extension listing: limit entries,
// else page_size, else everything. A cursor is checked either way: these
// listings are new, and no 0.2 client sends one.
func (r *Registry) extensionPage(list string, keys []string, cursor *string, limit *int) (start, end int, next string, err error) {
	size := r.pageSize
	if limit != nil {
		size = *limit
	}
	if size == 0 {
		size = max(len(keys), 1)
	}
	return paging.Cut(list, keys, cursor, size)
}

// isNotFound reports a registry not_found error.
func isNotFound(err error) bool {
	var e *contract.Error
	return errors.As(err, &e) && e.Code == contract.CodeNotFound
}

// skillSourceOf resolves one id as the registry serves it: the state row
// first, then the overlay.
func (r *Registry) skillSourceOf(ctx context.Context, id string) (skillSource, error) {
	if ids.ValidateSkillID(id) != nil {
		return skillSource{}, contract.NotFoundf("Skill not found: %s", ids.Unquoted(id))
	}
	text, found, err := r.view.StoredSkill(ctx, id)
	if err != nil {
		return skillSource{}, err
	}
	if found {
		m := catalog.MetaOf(id, text)
		src, _ := r.viewSkillSource(catalog.Skill{ID: id, Origin: originState, Meta: m})
		return src, nil
	}
	if s, ok := r.view.FileSkill(ctx, id); ok {
		l, err := r.skillListing(ctx)
		if err != nil {
			return skillSource{}, err
		}
		if sk, ok := l.Skill(id); ok && sk.File.Path == s.Path {
			if src, ok := r.viewSkillSource(sk); ok {
				return src, nil
			}
		}
		return skillSource{id: id, unserved: "it is a file of the skill folder that holds it, not a skill"}, nil
	}
	return skillSource{}, contract.NotFoundf("Skill not found: %s", ids.Unquoted(id))
}

// viewSkillSource is a view entry as an MCP skill; ok is false for the
// other markdown files of a root's skill folder. A body's SKILL.md is
// synthesised from its frontmatter's description (else the index's) and
// its text after the frontmatter, whatever its origin.
func (r *Registry) viewSkillSource(sk catalog.Skill) (skillSource, bool) {
	f := sk.File
	switch {
	case sk.Origin == originFS && f.Root != "" && f.SkillFile:
		src := skillSource{id: sk.ID, folder: filepath.Dir(f.Path), path: f.Path}
		if last := path.Base(sk.ID); sk.Name != last {
			src.unserved = fmt.Sprintf("its frontmatter name %s is not its folder name %s", ids.Quote(sk.Name), ids.Quote(last))
		}
		return src, true
	case sk.Origin == originFS && f.Root != "":
		return skillSource{}, false
	}
	src := skillSource{id: sk.ID, origin: sk.Origin, path: f.Path, description: synthDescription(sk.Summary)}
	if sk.Origin == originState {
		src.textSHA = sk.SHA256
	}
	src.unserved = nameProblem(sk.ID)
	return src, true
}

// nameProblem says why an id's last segment cannot name an MCP skill.
func nameProblem(id string) string {
	if last := path.Base(id); !fsource.ValidName(last) {
		return fmt.Sprintf("its name %s (the id's last segment) is not an Agent Skills name: 1 to 64 characters of a-z, 0-9 and single hyphens", ids.Quote(last))
	}
	return ""
}

// synthDescription is a synthesised SKILL.md's description: the index
// line's description, else the title.
func synthDescription(sum skillmd.Summary) string {
	d := sum.Description()
	if !sum.HasDesc || strings.TrimSpace(d) == "" {
		d = sum.Title
	}
	return d
}

// synthFrontmatter is the frontmatter block of a synthesised SKILL.md.
func synthFrontmatter(id, description string) string {
	b, err := yaml.Marshal(struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}{path.Base(id), description})
	if err != nil { // two strings always marshal
		panic(err)
	}
	return "---\n" + string(b) + "---\n\n"
}

// skillMD is the SKILL.md of a skill: the file of a folder skill, or the
// one synthesised from a body.
func (r *Registry) skillMD(ctx context.Context, src skillSource) ([]byte, error) {
	if src.folder != "" {
		b, err := r.fs.ReadFile(src.path)
		if err != nil {
			return nil, contract.UnavailableMsg(fmt.Errorf("read %s: %w", src.path, err))
		}
		return b, nil
	}
	body, err := r.synthBody(ctx, src)
	if err != nil {
		return nil, err
	}
	return []byte(synthFrontmatter(src.id, src.description) + body), nil
}

// synthBody is the markdown after a synthesised SKILL.md's frontmatter:
// the skill's body without a frontmatter of its own (its description is
// already the synthesised one's). A file that cannot be read gives an
// empty body, as the index lists it.
func (r *Registry) synthBody(ctx context.Context, src skillSource) (string, error) {
	if src.origin == originState {
		text, found, err := r.view.StoredSkill(ctx, src.id)
		if err != nil {
			return "", err
		}
		if !found {
			return "", contract.NotFoundf("Skill not found: %s", ids.Unquoted(src.id))
		}
		return skillmd.Parse(text).Body, nil
	}
	body, err := r.fs.ReadBody(src.path)
	if err != nil {
		return "", nil
	}
	return body, nil
}

// notServed is the error for a skill that exists but is not an MCP skill.
func notServed(id, why string) *contract.Error {
	return contract.NotFoundf("%s is not served as an MCP skill: %s", ids.Quote(skillURI(id)), why)
}

// folderSkill checks a folder skill as the extension serves it: its files
// within the limits, its SKILL.md read, its frontmatter a JSON object. A
// skill past the limits or with frontmatter that has no JSON form is not
// served; a file that cannot be read is unavailable.
func (r *Registry) folderSkill(ctx context.Context, src skillSource) (files []fsource.FolderFile, md []byte, front json.RawMessage, err error) {
	files, err = r.fs.FolderFiles(ctx, src.folder)
	switch {
	case errors.Is(err, fsource.ErrFolderTooLarge):
		return nil, nil, nil, notServed(src.id, err.Error())
	case err != nil:
		return nil, nil, nil, contract.UnavailableMsg(fmt.Errorf("skill %s: %w", ids.Quote(src.id), err))
	}
	if md, err = r.skillMD(ctx, src); err != nil {
		return nil, nil, nil, err
	}
	m, err := frontmatterJSON(md)
	if err != nil {
		return nil, nil, nil, notServed(src.id, err.Error())
	}
	if front, err = json.Marshal(m); err != nil {
		return nil, nil, nil, notServed(src.id, "its frontmatter has no JSON form: "+err.Error())
	}
	return files, md, front, nil
}

// mcpSkillEntry builds a skill's entry: its frontmatter and every file
// with its digest.
func (r *Registry) mcpSkillEntry(ctx context.Context, src skillSource) (mcpSkill, error) {
	if src.folder == "" {
		return r.synthEntry(ctx, src)
	}
	files, md, frontJSON, err := r.folderSkill(ctx, src)
	if err != nil {
		return mcpSkill{}, err
	}
	served := r.servedFiles(ctx, src, files)
	entry := mcpSkill{URI: skillURI(src.id), Frontmatter: frontJSON, Resources: make([]mcpSkillFile, 0, len(served))}
	for _, sf := range served {
		if sf.Rel == skillFile {
			entry.Resources = append(entry.Resources, mcpSkillFile{URI: sf.uri, Digest: digestOf(md), Size: int64(len(md))})
			continue
		}
		sum, size, err := r.mcpDigests.file(sf.FolderFile, r.fs.ReadBytes)
		if err != nil {
			return mcpSkill{}, contract.UnavailableMsg(fmt.Errorf("read %s: %w", sf.Path, err))
		}
		entry.Resources = append(entry.Resources, mcpSkillFile{URI: sf.uri, Digest: sum, Size: size})
	}
	return entry, nil
}

// servedFile is a file of a folder skill that its entry lists, with its
// URI.
type servedFile struct {
	fsource.FolderFile
	uri string
}

// servedFiles are the files of a folder skill that its entry lists: all
// but those whose path no URI carries and a nested SKILL.md whose URI
// another skill takes.
func (r *Registry) servedFiles(ctx context.Context, src skillSource, files []fsource.FolderFile) []servedFile {
	out := make([]servedFile, 0, len(files))
	for _, f := range files {
		if uri, ok := fileURI(src.id, f.Rel); ok && !r.shadowedSkillMD(ctx, src.id, f.Rel) {
			out = append(out, servedFile{f, uri})
		}
	}
	return out
}

// shadowedSkillMD reports a nested skill's SKILL.md in a folder whose id
// state or a glob serves instead: its URI is that skill's SKILL.md, so it
// is not a file of the enclosing folder's skill. (The nested folder's
// other files still are.)
func (r *Registry) shadowedSkillMD(ctx context.Context, id, rel string) bool {
	if rel == skillFile || path.Base(rel) != skillFile {
		return false
	}
	src, err := r.skillSourceOf(ctx, id+"/"+path.Dir(rel))
	return err == nil && src.folder == "" && src.unserved == "" // as a read resolves it
}

// synthEntry is the entry of a skill served as a synthesised SKILL.md.
// A listing knows a state body's digest from its summary: the SKILL.md's
// digest is kept by it and the description (the frontmatter is a function
// of the id and the description), so a body is read, and the frontmatter
// written, only when one of them changed.
func (r *Registry) synthEntry(ctx context.Context, src skillSource) (mcpSkill, error) {
	front, _ := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}{path.Base(src.id), src.description}) // two strings always marshal
	entry := mcpSkill{URI: skillURI(src.id), Frontmatter: front}
	var file mcpSkillFile
	kept, ok := r.mcpDigests.synth(src.id, src.textSHA+"\x00"+src.description)
	if ok && src.textSHA != "" {
		file = kept
	} else {
		md, err := r.skillMD(ctx, src)
		if err != nil {
			return mcpSkill{}, err
		}
		file = mcpSkillFile{Digest: digestOf(md), Size: int64(len(md))}
		if src.textSHA != "" {
			r.mcpDigests.keepSynth(src.id, src.textSHA+"\x00"+src.description, file)
		}
	}
	file.URI = entry.URI
	entry.Resources = []mcpSkillFile{file}
	return entry, nil
}

// frontmatterJSON is a SKILL.md's frontmatter as a JSON object.
func frontmatterJSON(md []byte) (map[string]any, error) {
	raw, _, ok := skillmd.SplitFrontmatter(md)
	if !ok {
		return nil, errors.New("its SKILL.md has no frontmatter")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("its SKILL.md frontmatter is not YAML: %s", ids.Unquoted(err.Error()))
	}
	v, err := yamlnode.JSON(&doc)
	if err != nil {
		return nil, fmt.Errorf("its SKILL.md frontmatter: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("its SKILL.md frontmatter is not a mapping")
	}
	return m, nil
}

func digestOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// mimeOf is a supporting file's MIME type, by its extension, else by
// whether it is text.
func mimeOf(name string, b []byte) string {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".md", ".markdown":
		return contract.MIMEMarkdown
	case "":
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	if utf8.Valid(b) {
		return "text/plain"
	}
	return "application/octet-stream"
}
