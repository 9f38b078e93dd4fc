package mcpskills

import (
	"context"
	"mime"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// The extension's optional resources/directory/read (SEP-2640,
// directoryRead): the direct children of a directory of a skill, files
// with their resource metadata and subdirectories as inode/directory. A
// skill's directories are its root (skill://<id>) and every folder that
// holds a file the skill lists; the children are taken from the same
// listing as skills/get's, so the two agree on what is served.
const (
	descMCPSkillsDir = "Internal: lists the direct children of a directory of an MCP skill (skill://<id> or skill://<id>/<folder>) as the MCP Skills extension's resources/directory/read result."

	mimeDirectory = "inode/directory"
)

type mcpSkillsDirInput struct {
	URI    *string `json:"uri" jsonschema:"required" jsonschema_description:"The directory: skill://<id> or skill://<id>/<folder>."`
	Cursor *string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page; absent for the first page."`
	Limit  *int    `json:"limit,omitempty" jsonschema_description:"Children per page, 1 to 100000; default: the worker's page_size, else all."`
}

type dirEntry struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType,omitempty"` // a file's by its extension; left out when that says nothing
}

type mcpSkillsDirOutput struct {
	Resources  []dirEntry `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

func (x *Extension) mcpSkillsDir(ctx context.Context, in mcpSkillsDirInput) (mcpSkillsDirOutput, error) {
	if in.URI == nil {
		return mcpSkillsDirOutput{}, contract.Invalidf("missing field `uri`: pass a directory of a skill, skill://<id> or skill://<id>/<folder>")
	}
	if err := checkLimit(in.Limit, "entries"); err != nil {
		return mcpSkillsDirOutput{}, err
	}
	uri := strings.TrimSuffix(*in.URI, "/")
	segs, err := skillPath(uri + "/x") // a directory's URI is a file's, less the file
	if err != nil {
		return mcpSkillsDirOutput{}, err
	}
	segs = segs[:len(segs)-1]
	notDir := contract.NotFoundf("%s is not a directory of a skill this server serves", ids.Quote(*in.URI))
	entries, err := x.dirEntries(ctx, segs)
	if err != nil {
		return mcpSkillsDirOutput{}, err
	}
	if entries == nil {
		return mcpSkillsDirOutput{}, notDir
	}
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = e.URI
	}
	start, end, next, err := x.extensionPage("directory", keys, in.Cursor, in.Limit)
	if err != nil {
		return mcpSkillsDirOutput{}, err
	}
	return mcpSkillsDirOutput{Resources: entries[start:end], NextCursor: next}, nil
}

// dirEntries lists the directory at segs (a skill's id, then folders
// inside it): nil when no served skill has that directory.
func (x *Extension) dirEntries(ctx context.Context, segs []string) ([]dirEntry, error) {
	// The skill itself, when segs name one: a body skill's directory
	// holds its SKILL.md alone.
	if src, err := x.skillSourceOf(ctx, strings.Join(segs, "/")); err == nil && src.unserved == "" && src.folder == "" {
		uri := skillURI(src.id)
		return []dirEntry{{URI: uri, Name: skillFile, MimeType: contract.MIMEMarkdown}}, nil
	} else if err != nil && !isNotFound(err) {
		return nil, err
	}
	// Else the nearest enclosing folder skill, as a read finds it. Its
	// files are listed as skills/get lists them, without their digests.
	src, k, ok := x.enclosingFolderSkill(ctx, segs, len(segs))
	if !ok {
		return nil, nil
	}
	files, _, _, err := x.folderSkill(ctx, src)
	if err != nil {
		return nil, err
	}
	dir := SkillScheme + src.id
	if k < len(segs) { // a folder inside the skill: its names encoded as the listing's
		uri, ok := fileURI(src.id, strings.Join(segs[k:], "/"))
		if !ok {
			return nil, nil
		}
		dir = uri
	}
	return children(x.servedFiles(ctx, src, files), dir), nil
}

// children are the direct children of the directory dir (a URI without
// a trailing slash) among a skill's listed files, sorted by URI; nil
// when no listed file lies under dir.
func children(files []servedFile, dir string) []dirEntry {
	var out []dirEntry
	seen := map[string]bool{}
	for _, f := range files {
		rest, ok := strings.CutPrefix(f.uri, dir+"/")
		if !ok {
			continue
		}
		name, _, isDir := strings.Cut(rest, "/")
		uri := dir + "/" + name
		if seen[uri] {
			continue
		}
		seen[uri] = true
		e := dirEntry{URI: uri, Name: name, MimeType: mimeDirectory}
		if n, err := url.PathUnescape(name); err == nil {
			e.Name = n
		}
		if !isDir {
			e.MimeType = mimeByName(e.Name)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b dirEntry) int { return strings.Compare(a.URI, b.URI) })
	return out
}

// mimeByName is a file's MIME type by its extension, "" when unknown.
func mimeByName(name string) string {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".md", ".markdown":
		return contract.MIMEMarkdown
	case "":
		return ""
	default:
		return mime.TypeByExtension(ext)
	}
}
