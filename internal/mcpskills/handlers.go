package mcpskills

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/paging"
)

func (x *Extension) mcpSkillsList(ctx context.Context, in mcpSkillsListInput) (mcpSkillsListOutput, error) {
	if err := checkLimit(in.Limit, "skills"); err != nil {
		return mcpSkillsListOutput{}, err
	}
	sources, err := x.skillSources(ctx)
	if err != nil {
		return mcpSkillsListOutput{}, err
	}
	keys := make([]string, len(sources))
	for i, s := range sources {
		keys[i] = s.id
	}
	start, end, next, err := x.extensionPage("skills", keys, in.Cursor, in.Limit)
	if err != nil {
		return mcpSkillsListOutput{}, err
	}
	out := mcpSkillsListOutput{Skills: make([]mcpSkill, 0, end-start), NextCursor: next}
	listed := make([]string, 0, end-start)
	// A page also ends before it would pass the response budget (D26),
	// with a cursor to the rest: a catalog of any size lists, a page at a
	// time, without page_size.
	room := x.limits.Load().maxResponse - listEnvelopeBytes
	for i, src := range sources[start:end] {
		entry, err := x.mcpSkillEntry(ctx, src)
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
		listed = append(listed, src.id)
	}
	// Once per answer, the skills on its page (docs/decisions.md D84).
	x.view.Usage().Listed(nil, func() []string { return listed })
	if start == 0 { // a listing starts: the digests' next generation (D64)
		x.synth.turn()
		x.view.TurnFileDigests()
	}
	return out, nil
}

func (x *Extension) mcpSkillsGet(ctx context.Context, in mcpSkillsGetInput) (mcpSkillsGetOutput, error) {
	if in.URI == nil {
		return mcpSkillsGetOutput{}, contract.Invalidf("missing field `uri`: pass a skill's skill://<id>/SKILL.md URI")
	}
	id, ok := strings.CutSuffix(strings.TrimPrefix(*in.URI, SkillScheme), "/"+skillFile)
	if !strings.HasPrefix(*in.URI, SkillScheme) || !ok {
		return mcpSkillsGetOutput{}, contract.Invalidf("uri %s is not a skill's SKILL.md URI; allowed: skill://<id>/SKILL.md", ids.Quote(*in.URI))
	}
	src, err := x.skillSourceOf(ctx, id)
	if err != nil {
		return mcpSkillsGetOutput{}, err
	}
	if src.unserved != "" {
		return mcpSkillsGetOutput{}, contract.NotFoundf("%s is not served as an MCP skill: %s", ids.Quote(*in.URI), src.unserved)
	}
	entry, err := x.mcpSkillEntry(ctx, src)
	if err != nil {
		return mcpSkillsGetOutput{}, err
	}
	return mcpSkillsGetOutput{Skill: entry}, nil
}

func (x *Extension) mcpSkillsRead(ctx context.Context, in mcpSkillsGetInput) (mcpSkillsReadOutput, error) {
	if in.URI == nil {
		return mcpSkillsReadOutput{}, contract.Invalidf("missing field `uri`: pass a skill://<id>/<file> URI")
	}
	uri := *in.URI
	target, linked, err := linkTarget(uri)
	if err != nil {
		return mcpSkillsReadOutput{}, err
	}
	segs, err := skillPath(target)
	if err != nil {
		return mcpSkillsReadOutput{}, err
	}
	notFound := contract.NotFoundf("Skill file not found: %s", ids.Unquoted(uri))
	if linked {
		notFound = contract.NotFoundf("Skill file not found: %s (the link resolves to %s)", ids.Unquoted(uri), target)
	}
	if segs[len(segs)-1] == skillFile {
		id := strings.Join(segs[:len(segs)-1], "/")
		if src, err := x.skillSourceOf(ctx, id); err == nil && src.unserved == "" {
			var b []byte
			if src.folder != "" {
				_, b, _, err = x.folderSkill(ctx, src)
			} else {
				b, err = x.skillMD(ctx, src)
			}
			if err == nil {
				err = iii.HoldBytes(ctx, len(b)) // its bytes in flight (D64)
			}
			if err != nil {
				return mcpSkillsReadOutput{}, err
			}
			x.view.NoteRead(id)
			x.view.Usage().Read(id) // D84
			return mcpSkillsReadOutput{Contents: []mcpSkillsReadContent{{URI: uri, MimeType: contract.MIMEMarkdown, Text: string(b)}}}, nil
		} else if err != nil && !isNotFound(err) {
			return mcpSkillsReadOutput{}, err
		}
	}
	// A supporting file: of the nearest enclosing folder skill.
	if src, k, ok := x.enclosingFolderSkill(ctx, segs, len(segs)-1); ok {
		rel := strings.Join(segs[k:], "/")
		files, _, _, err := x.folderSkill(ctx, src)
		if err != nil {
			return mcpSkillsReadOutput{}, err
		}
		for _, f := range files {
			if f.Rel != rel {
				continue
			}
			b, err := x.view.ReadBytes(f.Path)
			if errors.Is(err, catalog.ErrEscaped) {
				return mcpSkillsReadOutput{}, notFound
			}
			if err != nil {
				return mcpSkillsReadOutput{}, contract.UnavailableMsg(fmt.Errorf("read %s: %w", f.Path, err))
			}
			if err := iii.HoldBytes(ctx, len(b)); err != nil {
				return mcpSkillsReadOutput{}, err
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
func (x *Extension) enclosingFolderSkill(ctx context.Context, segs []string, deepest int) (src skillSource, k int, ok bool) {
	folders := map[string]bool{}
	fsSkills := x.view.Files(ctx).Skills
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
		if src, err := x.skillSourceOf(ctx, id); err == nil && src.folder != "" && src.unserved == "" {
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
