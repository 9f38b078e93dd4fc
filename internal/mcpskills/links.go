package mcpskills

import (
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/links"
)

// linkTarget is the skill:// URI a read of uri reads (docs/decisions.md
// D70): uri itself, or for a URI written by joining a link to a file's
// folder (skill://pdf/./references/x.md, skill://team/a/../b/SKILL.md,
// skill://pdf/{baseDir}/scripts/x.py, skill://pdf/SKILL.md#usage,
// skill://team/b/) the file the link names, by the rule of package links:
// a folder is its SKILL.md. Such a URI is linked; one that cannot be
// followed is invalid_argument naming it. Percent-escapes are left to
// skillPath, except those of a separator, a dot or NUL, refused here.
func linkTarget(uri string) (target string, linked bool, err error) {
	rest, ok := strings.CutPrefix(uri, SkillScheme)
	if !ok || len(uri) > maxSkillURI || !links.NeedsCleaning(rest) && !strings.HasSuffix(rest, "/") {
		return uri, false, nil
	}
	t, err := links.Clean(rest)
	switch {
	case err != nil:
		return "", true, unfollowable(uri, err.Error())
	case t.Path == "":
		return "", true, contract.NotFoundf("Skill file not found: %s names the registry root, which is no skill's folder", ids.Unquoted(uri))
	case !t.Folder && !strings.Contains(t.Path, "/"):
		return "", true, unfollowable(uri, "it names "+SkillScheme+t.Path+", a skill without a file; a skill is read as skill://<id>/SKILL.md")
	}
	return SkillScheme + t.FilePath(), true, nil
}

// unfollowable is the invalid_argument error of a skill:// URI written as
// a link that cannot be followed.
func unfollowable(uri, why string) *contract.Error {
	return contract.Invalidf("cannot follow the link %s: %s. Allowed: skill://<id>/<file>, or one written by joining a link to a file's folder (./x.md, ../other-skill/SKILL.md, a trailing / for a folder's SKILL.md, #section) that stays within the registry", ids.Quote(uri), why)
}
