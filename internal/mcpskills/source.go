package mcpskills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// skillSources are the registry's skills in id order, as MCP skills: the
// state rows, then the overlay's skills state does not shadow, less the
// non-SKILL.md files of root folders and the skills that cannot be served.
func (x *Extension) skillSources(ctx context.Context) ([]skillSource, error) {
	l, err := x.view.Skills(ctx)
	if err != nil {
		return nil, err
	}
	served := make([]skillSource, 0, len(l.Skills))
	for _, sk := range l.Skills {
		if src, ok := x.viewSkillSource(sk); ok && src.unserved == "" {
			served = append(served, src)
		}
	}
	return served, nil
}

func sortSources(s []skillSource) {
	slices.SortFunc(s, func(a, b skillSource) int { return strings.Compare(a.id, b.id) })
}

// skillSourceOf resolves one id as the registry serves it (the view's
// Lookup: the stored row, else the listed file).
func (x *Extension) skillSourceOf(ctx context.Context, id string) (skillSource, error) {
	if ids.ValidateSkillID(id) != nil {
		return skillSource{}, contract.NotFoundf("Skill not found: %s", ids.Unquoted(id))
	}
	at, found, err := x.view.Lookup(ctx, id)
	switch {
	case err != nil:
		return skillSource{}, err
	case found && at.Origin == catalog.OriginState:
		src, _ := x.viewSkillSource(catalog.Skill{ID: id, Origin: catalog.OriginState, Meta: catalog.MetaOf(id, at.Text)})
		if l, err := x.view.Skills(ctx); err == nil {
			// Whether it is available is the listing's judgement (D85).
			if sk, ok := l.Skill(id); ok {
				src.unavailable = sk.Unavailable
			}
		}
		return src, nil
	case found:
		s := at.File
		l, err := x.view.Skills(ctx)
		if err != nil {
			return skillSource{}, err
		}
		if sk, ok := l.Skill(id); ok && sk.File.Path == s.Path {
			if src, ok := x.viewSkillSource(sk); ok {
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
func (x *Extension) viewSkillSource(sk catalog.Skill) (skillSource, bool) {
	f := sk.File
	switch {
	case sk.Origin == catalog.OriginFS && f.Root != "" && f.SkillFile:
		src := skillSource{id: sk.ID, folder: filepath.Dir(f.Path), path: f.Path, lint: sk.Lint, unavailable: sk.Unavailable}
		if last := path.Base(sk.ID); sk.Name != last {
			src.unserved = fmt.Sprintf("its frontmatter name %s is not its folder name %s", ids.Quote(sk.Name), ids.Quote(last))
		}
		return src, true
	case sk.Origin == catalog.OriginFS && f.Root != "":
		return skillSource{}, false
	}
	src := skillSource{id: sk.ID, origin: sk.Origin, path: f.Path, description: synthDescription(sk.Summary), lint: sk.Lint, unavailable: sk.Unavailable}
	if sk.Origin == catalog.OriginState {
		src.textSHA = sk.SHA256
		src.revision = sk.Revision
	}
	src.unserved = nameProblem(sk.ID)
	return src, true
}

// nameProblem says why an id's last segment cannot name an MCP skill.
func nameProblem(id string) string {
	if last := path.Base(id); !catalog.ValidName(last) {
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
func (x *Extension) skillMD(ctx context.Context, src skillSource) ([]byte, error) {
	if src.folder != "" {
		b, err := x.view.ReadFile(src.path)
		if err != nil {
			return nil, contract.UnavailableMsg(fmt.Errorf("read %s: %w", src.path, err))
		}
		return b, nil
	}
	body, err := x.synthBody(ctx, src)
	if err != nil {
		return nil, err
	}
	return []byte(synthFrontmatter(src.id, src.description) + body), nil
}

// synthBody is the markdown after a synthesised SKILL.md's frontmatter:
// the skill's body without a frontmatter of its own (its description is
// already the synthesised one's). A file that cannot be read gives an
// empty body, as the index lists it.
func (x *Extension) synthBody(ctx context.Context, src skillSource) (string, error) {
	if src.origin == catalog.OriginState {
		text, found, err := x.view.StoredSkill(ctx, src.id)
		if err != nil {
			return "", err
		}
		if !found {
			return "", contract.NotFoundf("Skill not found: %s", ids.Unquoted(src.id))
		}
		return skillmd.Parse(text).Body, nil
	}
	body, err := x.view.ReadBody(src.path)
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
func (x *Extension) folderSkill(ctx context.Context, src skillSource) (files []catalog.FolderFile, md []byte, front json.RawMessage, err error) {
	files, err = x.view.FolderFiles(ctx, src.folder)
	switch {
	case errors.Is(err, catalog.ErrFolderTooLarge):
		return nil, nil, nil, notServed(src.id, err.Error())
	case err != nil:
		return nil, nil, nil, contract.UnavailableMsg(fmt.Errorf("skill %s: %w", ids.Quote(src.id), err))
	}
	if md, err = x.skillMD(ctx, src); err != nil {
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
