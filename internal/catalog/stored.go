package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// The catalog's scopes hold what the view makes of each stored row: for
// a skill its StateSkill and body, for a prompt the decoded PromptRow. A
// row that does not decode keeps its error, so a read reports it exactly
// as a read from the engine would. Every state::* call for the two
// scopes is made here and in store.go.

// NewSkillsScope returns the catalog scope for skill rows, keeping up to
// cacheBytes of bodies (docs/decisions.md D17).
func NewSkillsScope(scope string, cacheBytes int64) *Scope {
	s := NewScope(scope, decodeSkillEntry, cacheBytes)
	s.keyField = "id"
	s.sameSummary = sameSkill
	return s
}

// NewPromptsScope returns the catalog scope for prompt rows (small: they
// are kept whole, as summaries).
func NewPromptsScope(scope string) *Scope {
	s := NewScope(scope, decodePromptEntry, 0)
	s.keyField = "name"
	s.sameSummary = func(a, b any) bool { return reflect.DeepEqual(a, b) } // a prompt's summary is its row
	return s
}

func decodeSkillEntry(raw json.RawMessage) (Decoded, bool) {
	row, err := DecodeSkillRow(raw)
	if err != nil {
		key, ok := KeyField(raw, "id")
		return Decoded{Key: key, Err: err}, ok
	}
	return skillEntry(row), true
}

// skillEntry is the entry of a skill row: the same whether the row was
// decoded from state or is one the worker just wrote.
func skillEntry(row SkillRow) Decoded {
	return Decoded{Key: row.ID, Summary: summarize(row), Body: row.Skill}
}

func decodePromptEntry(raw json.RawMessage) (Decoded, bool) {
	row, err := DecodePromptRow(raw)
	if err != nil {
		key, ok := KeyField(raw, "name")
		return Decoded{Key: key, Err: err}, ok
	}
	return Decoded{Key: row.Name, Summary: row}, true
}

// sameSkill reports whether two skill summaries describe the same row:
// the same id and time, and a body with the same digest.
func sameSkill(a, b any) bool {
	x, y := a.(StateSkill), b.(StateSkill)
	return x.ID == y.ID && x.RegisteredAt == y.RegisteredAt && x.Size == y.Size && x.SHA256 == y.SHA256 && x.Revision == y.Revision
}

// summarize is what the view keeps of a stored skill row: everything a
// listing needs, read once when the row arrives (its frontmatter parsed
// as any file's, docs/decisions.md D47).
func summarize(row SkillRow) StateSkill {
	return StateSkill{ID: row.ID, RegisteredAt: row.RegisteredAt, Revision: row.Revision, Meta: MetaOf(row.ID, row.Skill)}
}

// PutSkill stores row under its id (state::set), replacing any previous
// row; the catalog holds it before PutSkill returns, taken from row
// itself: the engine stores what it was sent, so its echo need not be
// decoded (docs/decisions.md D51).
func (v *View) PutSkill(ctx context.Context, row SkillRow) error {
	_, err := v.PutSkillVersion(ctx, row)
	return err
}

// PutSkillVersion is PutSkill, also returning the write's version for
// the reply (docs/decisions.md D78; the zero WriteVersion when the engine
// echoed no value).
func (v *View) PutSkillVersion(ctx context.Context, row SkillRow) (WriteVersion, error) {
	var own *Decoded
	if v.skills != nil {
		d := skillEntry(row)
		own = &d
	}
	return v.skillRows.set(ctx, row.ID, row, own)
}

// DeleteSkill removes the stored skill id and reports whether there was
// one.
//
// The id's read count goes with it (D64), even when a file of the same id
// is served in its place: that file's reads count from nought.
func (v *View) DeleteSkill(ctx context.Context, id string) (removed bool, err error) {
	removed, _, err = v.DeleteSkillVersion(ctx, id)
	return removed, err
}

// DeleteSkillVersion is DeleteSkill, also returning the delete's version
// (docs/decisions.md D78).
func (v *View) DeleteSkillVersion(ctx context.Context, id string) (removed bool, ver WriteVersion, err error) {
	removed, err = v.skillRows.delete(ctx, id)
	if err != nil {
		return false, WriteVersion{}, err
	}
	v.forgetRead(id)
	return removed, DeletedVersion(v.skillRows.scope, id), nil
}

// StoredSkill returns the body stored at id, from the catalog when it can
// vouch for it, else from the engine (caching the body it read).
func (v *View) StoredSkill(ctx context.Context, id string) (body string, found bool, err error) {
	m := v.skills
	var gen uint64
	if m != nil {
		e, found, authoritative := m.Get(id)
		switch {
		case !authoritative:
		case !found:
			return "", false, nil
		case e.Err != nil:
			return "", false, skillDecodeError(id, e.Err)
		case e.HasBody:
			return e.Body, true, nil
		}
		gen = e.Gen
	}
	raw, err := v.skillRows.get(ctx, id)
	if err != nil || raw == nil {
		return "", false, err
	}
	row, err := DecodeSkillRow(raw)
	if err != nil {
		return "", false, skillDecodeError(id, err)
	}
	if m != nil {
		m.CacheBody(id, row.Skill, gen) // only if no newer value arrived meanwhile
	}
	return row.Skill, true, nil
}

func skillDecodeError(key string, err error) error {
	return contract.UnavailableMsg(fmt.Errorf("decode stored skill %s: %w", ids.Unquoted(key), err))
}

// PutPrompt stores row under its name (state::set), replacing any
// previous row.
func (v *View) PutPrompt(ctx context.Context, row PromptRow) error {
	_, err := v.PutPromptVersion(ctx, row)
	return err
}

// PutPromptVersion is PutPrompt, also returning the write's version
// (docs/decisions.md D78).
func (v *View) PutPromptVersion(ctx context.Context, row PromptRow) (WriteVersion, error) {
	return v.promptRows.set(ctx, row.Name, row, nil) // the mirror decodes the echo, as a load would
}

// DeletePrompt removes the stored prompt name and reports whether there
// was one.
func (v *View) DeletePrompt(ctx context.Context, name string) (removed bool, err error) {
	removed, _, err = v.DeletePromptVersion(ctx, name)
	return removed, err
}

// DeletePromptVersion is DeletePrompt, also returning the delete's
// version (docs/decisions.md D78).
func (v *View) DeletePromptVersion(ctx context.Context, name string) (removed bool, ver WriteVersion, err error) {
	removed, err = v.promptRows.delete(ctx, name)
	if err != nil {
		return false, WriteVersion{}, err
	}
	return removed, DeletedVersion(v.promptRows.scope, name), nil
}

// StoredPrompt returns the prompt row stored at name, from the catalog
// when it can vouch for it, else from the engine.
func (v *View) StoredPrompt(ctx context.Context, name string) (row PromptRow, found bool, err error) {
	if m := v.prompts; m != nil {
		if e, found, authoritative := m.Get(name); authoritative {
			switch {
			case !found:
				return PromptRow{}, false, nil
			case e.Err != nil:
				return PromptRow{}, false, promptDecodeError(name, e.Err)
			default:
				return e.Summary.(PromptRow), true, nil
			}
		}
	}
	raw, err := v.promptRows.get(ctx, name)
	if err != nil || raw == nil {
		return PromptRow{}, false, err
	}
	row, err = DecodePromptRow(raw)
	if err != nil {
		return PromptRow{}, false, promptDecodeError(name, err)
	}
	return row, true, nil
}

func promptDecodeError(name string, err error) error {
	return contract.UnavailableMsg(fmt.Errorf("decode stored prompt %s: %w", ids.Unquoted(name), err))
}

// StoredPrompts returns the decodable prompt rows in state, sorted by
// name: from the catalog while it is loaded, else with one state::list
// (rows that do not decode are skipped, as the Rust worker does).
func (v *View) StoredPrompts(ctx context.Context) ([]PromptRow, error) {
	byName := func(a, b PromptRow) int { return cmp.Compare(a.Name, b.Name) }
	if m := v.prompts; m != nil {
		if summaries, ok := m.Summaries(); ok {
			rows := make([]PromptRow, len(summaries))
			for i, s := range summaries {
				rows[i] = s.(PromptRow) // sorted by name already: the scope's key
			}
			return rows, nil
		}
	}
	res, err := v.promptRows.list(ctx)
	if err != nil {
		return nil, err
	}
	rows := decodeRows[promptWire, PromptRow](res)
	slices.SortStableFunc(rows, byName)
	return rows, nil
}

// promptsKey is the pair of versions a prompts listing is rendered from.
type promptsKey struct{ prompts, fs uint64 }

// PromptsVersion identifies the stored prompts and the file scan when
// that can be known without reading them (docs/decisions.md D19): equal
// versions, equal prompts. ok is false while the prompts scope is read
// through.
func (v *View) PromptsVersion(ctx context.Context) (key any, ok bool) {
	m := v.prompts
	if m == nil || !m.Valid() {
		return nil, false
	}
	k := promptsKey{prompts: m.Version()}
	k.fs = v.Files(ctx).Version
	return k, m.Valid()
}

// SkillsScope and PromptsScope are the catalog's scopes the view reads
// (nil when every read goes to the engine), for diagnostics.
func (v *View) SkillsScope() *Scope { return v.skills }

// PromptsScope is the catalog's scope of prompt rows; see SkillsScope.
func (v *View) PromptsScope() *Scope { return v.prompts }
