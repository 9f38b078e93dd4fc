package catalog

import (
	"context"
	"errors"
	"io/fs"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// Body returns what iii://{id} serves: the stored row's body, else the
// body of the file with that id, read through the source's checked read
// and kept while the file's Stamp holds. found is false when neither has
// the id, and for a file removed since the listing that no other file
// replaces. A read that finds the file changed since the listing brings
// the view up to date at once, so no listing stays behind what a read
// served.
func (v *View) Body(ctx context.Context, id string) (body string, found bool, err error) {
	body, found, err = v.StoredSkill(ctx, id)
	if err != nil || found {
		return body, found, err
	}
	sk, ok := v.FileSkill(ctx, id)
	if !ok {
		return "", false, nil
	}
	body, stamp, err := v.bodies.read(sk.Path, v.src.ReadBody)
	if err == nil && !stamp.Equal(sk.Stamp) {
		v.Refresh(ctx)
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
