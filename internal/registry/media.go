package registry

import (
	"mime"
	"path"
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// mediaType is the MIME type iii:// serves an id with (docs/decisions.md
// D69): markdown for every id 0.2 could have (registered, from a glob, a
// SKILL.md or a markdown file of a root) and for markdown files named by
// their path; a root's other files by their extension, as the MCP Skills
// extension's manifest types them, else text/plain (iii:// serves text).
func mediaType(id string) string {
	ext := strings.ToLower(path.Ext(path.Base(id)))
	switch {
	case ext == ".md" || ext == ".markdown":
		return contract.MIMEMarkdown
	case ext == "" && ids.ValidateSkillID(id) == nil:
		return contract.MIMEMarkdown
	case ext != "":
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return "text/plain"
}
