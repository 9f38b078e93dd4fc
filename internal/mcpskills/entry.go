package mcpskills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/skillmd"
	"github.com/iii-hq/skills-go/internal/yamlnode"
)

// mcpSkillEntry builds a skill's entry: its frontmatter, every file with
// its digest and, in _meta, on a flagged skill under lint.flagged: note,
// the content checks' notes (docs/decisions.md D65), and on a stored
// skill with a revision, that revision (D83); on an unavailable skill,
// what it lacks (D85).
func (x *Extension) mcpSkillEntry(ctx context.Context, src skillSource) (mcpSkill, error) {
	entry, err := x.filesEntry(ctx, src)
	if err != nil {
		return mcpSkill{}, err
	}
	entry.Meta = catalog.WithUnavailable(x.view.LintMeta(src.lint), src.unavailable)
	if src.revision > 0 {
		if entry.Meta == nil {
			entry.Meta = map[string]any{}
		}
		entry.Meta[contract.MetaKeyRevision] = src.revision
	}
	return entry, nil
}

// filesEntry is a skill's entry without its _meta.
func (x *Extension) filesEntry(ctx context.Context, src skillSource) (mcpSkill, error) {
	if src.folder == "" {
		return x.synthEntry(ctx, src)
	}
	files, md, frontJSON, err := x.folderSkill(ctx, src)
	if err != nil {
		return mcpSkill{}, err
	}
	served := x.servedFiles(ctx, src, files)
	entry := mcpSkill{URI: skillURI(src.id), Frontmatter: frontJSON, Resources: make([]mcpSkillFile, 0, len(served))}
	for _, sf := range served {
		if sf.Rel == skillFile {
			entry.Resources = append(entry.Resources, mcpSkillFile{URI: sf.uri, Digest: digestOf(md), Size: int64(len(md))})
			continue
		}
		sum, size, err := x.view.FileDigest(sf.FolderFile)
		if err != nil {
			return mcpSkill{}, contract.UnavailableMsg(fmt.Errorf("read %s: %w", sf.Path, err))
		}
		entry.Resources = append(entry.Resources, mcpSkillFile{URI: sf.uri, Digest: digestPrefix + sum, Size: size})
	}
	return entry, nil
}

// servedFile is a file of a folder skill that its entry lists, with its
// URI.
type servedFile struct {
	catalog.FolderFile
	uri string
}

// servedFiles are the files of a folder skill that its entry lists: all
// but those whose path no URI carries and a nested SKILL.md whose URI
// another skill takes.
func (x *Extension) servedFiles(ctx context.Context, src skillSource, files []catalog.FolderFile) []servedFile {
	out := make([]servedFile, 0, len(files))
	for _, f := range files {
		if uri, ok := fileURI(src.id, f.Rel); ok && !x.shadowedSkillMD(ctx, src.id, f.Rel) {
			out = append(out, servedFile{f, uri})
		}
	}
	return out
}

// shadowedSkillMD reports a nested skill's SKILL.md in a folder whose id
// state or a glob serves instead: its URI is that skill's SKILL.md, so it
// is not a file of the enclosing folder's skill. (The nested folder's
// other files still are.)
func (x *Extension) shadowedSkillMD(ctx context.Context, id, rel string) bool {
	if rel == skillFile || path.Base(rel) != skillFile {
		return false
	}
	src, err := x.skillSourceOf(ctx, id+"/"+path.Dir(rel))
	return err == nil && src.folder == "" && src.unserved == "" // as a read resolves it
}

// synthEntry is the entry of a skill served as a synthesised SKILL.md.
// A listing knows a state body's digest from its summary: the SKILL.md's
// digest is kept by it and the description (the frontmatter is a function
// of the id and the description), so a body is read, and the frontmatter
// written, only when one of them changed.
func (x *Extension) synthEntry(ctx context.Context, src skillSource) (mcpSkill, error) {
	front, _ := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}{path.Base(src.id), src.description}) // two strings always marshal
	entry := mcpSkill{URI: skillURI(src.id), Frontmatter: front}
	var file mcpSkillFile
	kept, ok := x.synth.get(src.id, src.textSHA+"\x00"+src.description)
	if ok && src.textSHA != "" {
		file = kept
	} else {
		md, err := x.skillMD(ctx, src)
		if err != nil {
			return mcpSkill{}, err
		}
		file = mcpSkillFile{Digest: digestOf(md), Size: int64(len(md))}
		if src.textSHA != "" {
			x.synth.keep(src.id, src.textSHA+"\x00"+src.description, file)
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

// digestPrefix names the digest's algorithm, as SEP-2640 writes a digest.
const digestPrefix = "sha256:"

func digestOf(b []byte) string {
	h := sha256.Sum256(b)
	return digestPrefix + hex.EncodeToString(h[:])
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
