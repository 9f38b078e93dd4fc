package catalog

import (
	"context"
	"errors"
	"io/fs"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/lint"
)

// Body returns what iii://{id} serves: the stored row's body, else the
// body of the file with that id, read through the source's checked read
// and kept while the file's Stamp holds. found is false when neither has
// the id, and for a file removed since the listing that no other file
// replaces. A read that finds the file changed since the listing brings
// the view up to date at once, so no listing stays behind what a read
// served.
func (v *View) Body(ctx context.Context, id string) (body string, found bool, err error) {
	at, found, err := v.Lookup(ctx, id)
	if err != nil || !found {
		return "", found, err
	}
	if at.Origin == OriginState {
		return at.Text, true, nil
	}
	sk := at.File
	body, stamp, err := v.bodies.read(sk.Path, v.src.ReadBody)
	if err == nil && !stamp.Equal(sk.Stamp) {
		v.Refresh(ctx)
		// Changed since the listing Lookup judged: judge what is served.
		if err := v.refuseSkill(id, func() *lint.Report { return lint.Check(body) }); err != nil {
			return "", false, err
		}
	}
	if errors.Is(err, fs.ErrNotExist) && v.watch != nil {
		// Removed since the files were last scanned; another file may
		// provide the id now.
		if again, ok := v.watch.Fresh(ctx).Skill(id); ok && again.Path != sk.Path {
			body, _, err = v.bodies.read(again.Path, v.src.ReadBody)
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, contract.UnavailableMsg(err)
	}
	return body, true, nil
}

// Found is where a point read found an id (Lookup).
type Found struct {
	Origin string        // OriginState or OriginFS
	Text   string        // the stored row's body (OriginState)
	File   fsource.Skill // the listed file (OriginFS)
}

// Lookup finds one id by the view's rule without building a listing: the
// stored row wins, else the listed file with that id. A failure to read
// the stored row is returned, never passed over to a file that a row may
// shadow. Every point read of a skill (Body, the MCP Skills extension)
// goes through it, so the precedence of listings and of reads is one, and
// so does the refusal of a flagged skill under lint.flagged: withhold.
//
// Only an id that could be registered is looked for in state: a root
// file's id that is not one (ids.FileID, docs/decisions.md D69) never
// reaches the engine. Under unavailable: hide, a skill the listing hides
// is refused too (D85).
func (v *View) Lookup(ctx context.Context, id string) (Found, bool, error) {
	var (
		text  string
		found bool
		err   error
	)
	if ids.ValidateSkillID(id) == nil {
		text, found, err = v.StoredSkill(ctx, id)
	}
	if err != nil {
		return Found{}, false, err
	}
	if found {
		if err := v.refuseSkill(id, func() *lint.Report { return lint.Check(text) }); err != nil {
			return Found{}, false, err
		}
		if err := v.refuseHidden(ctx, id); err != nil {
			return Found{}, false, err
		}
		return Found{Origin: OriginState, Text: text}, true, nil
	}
	if f, ok := v.FileSkill(ctx, id); ok {
		if err := v.refuseSkill(id, func() *lint.Report { return v.fileLint(f) }); err != nil {
			return Found{}, false, err
		}
		if err := v.refuseHidden(ctx, id); err != nil {
			return Found{}, false, err
		}
		return Found{Origin: OriginFS, File: f}, true, nil
	}
	return Found{}, false, nil
}

// FileSkill finds the listed file with id: in the watch's snapshot (a
// known id needs no directory check: its body is read fresh), else in
// the current scan.
func (v *View) FileSkill(ctx context.Context, id string) (fsource.Skill, bool) {
	if v.watch != nil {
		if sk, ok := v.watch.Snapshot().Skill(id); ok {
			return sk, true
		}
	}
	return v.Files(ctx).Skill(id)
}
