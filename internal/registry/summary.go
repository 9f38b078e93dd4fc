package registry

import "github.com/iii-hq/skills-go/internal/catalog"

// summarize is what the view keeps of a stored skill row: everything a
// listing needs, read once when the row arrives (its frontmatter parsed
// as any file's, docs/decisions.md D47).
func summarize(row skillRow) catalog.StateSkill {
	return catalog.StateSkill{ID: row.ID, RegisteredAt: row.RegisteredAt, Meta: catalog.MetaOf(row.ID, row.Skill)}
}
