package registry

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/links"
)

// Relative links (docs/decisions.md D70): a read of an iii:// URI written
// by joining a link to a skill's URI (iii://pdf/./references/x.md,
// iii://team/a/../b/SKILL.md, iii://pdf/forms.md#fields) reads what the
// link names, by the rule of package links; and skill::fetch with a base
// resolves links as written in the base document. URIs without such a
// form, 0.2's, are read as before, and so are sections: their parsing and
// errors are 0.2's.

// readTarget is the URI a read of uri reads: uri itself, or for a URI
// written as a link the URI the link names (linked true). A link that
// cannot be followed is invalid_argument naming it. A trailing '/' alone
// is 0.2's empty-segment error here (the reference pins iii://skill/).
func readTarget(uri string) (target string, linked bool, err error) {
	return linkTarget(uri, false)
}

// LinkTarget is the URI that skills mcp reads for a resources/read of
// uri: as readTarget, and a trailing '/' names a folder too
// (iii://team/alpha/ is iii://team/alpha), since the MCP server, not
// 0.2's resources-read, answers MCP clients. Its errors are
// *contract.Error.
func LinkTarget(uri string) (target string, linked bool, err error) {
	return linkTarget(uri, true)
}

func linkTarget(uri string, folders bool) (target string, linked bool, err error) {
	rest, ok := strings.CutPrefix(uri, Scheme)
	if !ok || !links.NeedsCleaning(rest) && !(folders && strings.HasSuffix(rest, "/")) {
		return uri, false, nil
	}
	if first, _, _ := strings.Cut(rest, "/"); first == sectionMarker {
		return uri, false, nil
	}
	t, err := links.Clean(rest)
	if err != nil {
		return "", true, unfollowable(uri, "", err)
	}
	target, err = linkURI(uri, "", t)
	return target, true, err
}

// linkURI is the iii:// URI of a resolved link: the folder's skill for a
// folder or its SKILL.md, else the file's path as written. A link never
// names a section (its functions run only from a URI written in full)
// nor the registry root.
func linkURI(link, base string, t links.Target) (string, error) {
	key := t.IIIKey()
	switch first, _, _ := strings.Cut(key, "/"); {
	case key == "":
		return "", contract.NotFoundf("Skill not found: %s names the registry root, which is no document (the index is %s)", linkName(link, base), IndexURI)
	case first == sectionMarker:
		return "", unfollowable(link, base, errors.New("it resolves to an iii://fn/ section, which a link never names; write the section URI in full"))
	}
	return Scheme + key, nil
}

// unfollowable is the invalid_argument error of a link that cannot be
// followed: the link (and the document it is in), why, and the rule.
func unfollowable(link, base string, why error) *contract.Error {
	return contract.Invalidf("cannot follow the link %s: %v. Allowed: a path relative to the document (references/x.md, ./x.md, ../other-skill/SKILL.md, {baseDir}/scripts/x.py, #section) that stays within the registry, or a full iii:// URI", linkName(link, base), why)
}

// linkName names a link in a message: quoted, with the document it is in.
func linkName(link, base string) string {
	if base == "" {
		return ids.Quote(link)
	}
	return ids.Quote(link) + " in " + ids.Quote(base)
}

// linkNotFound adds to a read's not_found what the link resolved to, so
// that the agent sees which URI was looked for.
func linkNotFound(err error, link, base, target string) error {
	ce, ok := errors.AsType[*contract.Error](err)
	if !ok || ce.Code != contract.CodeNotFound {
		return err
	}
	return contract.NotFoundf("%s (the link %s resolves to %s)", ce.Message, linkName(link, base), target)
}

// resolveLinks resolves each of entries, links written in the document at
// base, to the iii:// URI it names (skill::fetch with base). An entry that
// is already an iii:// URI is kept as it is; one with another scheme
// (https:, mailto:) is an external link, which fetch does not read.
func (r *Registry) resolveLinks(ctx context.Context, base string, entries []string) ([]string, error) {
	doc, err := r.docOf(ctx, base)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, link := range entries {
		switch {
		case strings.HasPrefix(link, Scheme):
			out[i] = link
			continue
		case links.HasScheme(link):
			return nil, contract.Invalidf("%s is an external link: skill::fetch reads iii:// URIs and links relative to base; open it with a tool for the web", ids.Quote(link))
		}
		t, err := doc.Resolve(link)
		if err != nil {
			return nil, unfollowable(link, base, err)
		}
		if out[i], err = linkURI(link, base, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// docOf is the document at base as links.Doc: whose folder its links are
// relative to, and its skill's folder ({baseDir}). A skill (a SKILL.md,
// read as its folder's id, or a registered body) is a folder; a file of a
// skill folder, a glob's file, or a name with an extension is a file in
// its parent folder. The index is the registry root.
func (r *Registry) docOf(ctx context.Context, base string) (links.Doc, error) {
	if !strings.HasPrefix(base, Scheme) {
		return links.Doc{}, contract.Invalidf("base must be the iii:// URI of the document the links are in, e.g. iii://pdf: %s", ids.Unquoted(base))
	}
	target, _, err := readTarget(base)
	if err != nil {
		return links.Doc{}, err
	}
	u, err := Parse(target)
	switch {
	case err != nil:
		return links.Doc{}, err
	case u.Kind == KindIndex:
		return links.Doc{Folder: true}, nil
	case u.Kind == KindSection:
		return links.Doc{}, contract.Invalidf("base must be a document, not an iii://fn/ section: %s", ids.Unquoted(base))
	}
	key, skillMD := strings.CutSuffix(u.Key, "/"+links.SkillFile)
	if !skillMD && r.isFile(ctx, key) {
		dir := path.Dir(key)
		if dir == "." {
			dir = ""
		}
		return links.Doc{Path: key, SkillDir: r.skillDirOf(ctx, dir)}, nil
	}
	return links.Doc{Path: key, Folder: true, SkillDir: key}, nil
}

// isFile reports whether key names a file rather than a skill: a name
// with an extension (no id has a '.'), or a listed file that is not a
// folder's SKILL.md.
func (r *Registry) isFile(ctx context.Context, key string) bool {
	if strings.Contains(path.Base(key), ".") {
		return true
	}
	f, ok := r.view.FileSkill(ctx, key)
	return ok && !f.SkillFile
}

// skillDirOf is the folder of the skill that holds folder dir: the
// nearest folder at or above it with a SKILL.md under a root, else dir.
func (r *Registry) skillDirOf(ctx context.Context, dir string) string {
	for d := dir; d != ""; {
		if f, ok := r.view.FileSkill(ctx, d); ok && f.SkillFile {
			return d
		}
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			break
		}
		d = d[:i]
	}
	return dir
}
