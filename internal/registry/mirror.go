package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// The catalog's mirrors of the two scopes (package catalog) hold what the
// registry makes of each row: for a skill its summary and body, for a
// prompt the decoded row. A row that does not decode keeps its error, so a
// read reports it exactly as a read from the engine would.

// NewSkillsMirror returns the catalog scope for skill rows, keeping up to
// cacheBytes of bodies (docs/decisions.md D17).
func NewSkillsMirror(scope string, cacheBytes int64) *catalog.Scope {
	return catalog.NewScope(scope, decodeSkillEntry, cacheBytes)
}

// NewPromptsMirror returns the catalog scope for prompt rows (small: they
// are kept whole, as summaries).
func NewPromptsMirror(scope string) *catalog.Scope {
	return catalog.NewScope(scope, decodePromptEntry, 0)
}

func decodeSkillEntry(raw json.RawMessage) (catalog.Decoded, bool) {
	row, err := decodeSkillRow(raw)
	if err != nil {
		key, ok := catalog.KeyField(raw, "id")
		return catalog.Decoded{Key: key, Err: err}, ok
	}
	return catalog.Decoded{Key: row.ID, Summary: summarize(row), Body: row.Skill}, true
}

func decodePromptEntry(raw json.RawMessage) (catalog.Decoded, bool) {
	row, err := decodePromptRow(raw)
	if err != nil {
		key, ok := catalog.KeyField(raw, "name")
		return catalog.Decoded{Key: key, Err: err}, ok
	}
	return catalog.Decoded{Key: row.Name, Summary: row}, true
}

// storedSkill returns the body stored at key, from the catalog when it can
// vouch for it, else from the engine (caching the body it read).
func (r *Registry) storedSkill(ctx context.Context, key string) (body string, found bool, err error) {
	m := r.skills.mirror
	var gen uint64
	if m != nil {
		e, found, authoritative := m.Get(key)
		switch {
		case !authoritative:
		case !found:
			return "", false, nil
		case e.Err != nil:
			return "", false, skillDecodeError(key, e.Err)
		case e.HasBody:
			return e.Body, true, nil
		}
		gen = e.Gen
	}
	raw, err := r.skills.get(ctx, key)
	if err != nil || raw == nil {
		return "", false, err
	}
	row, err := decodeSkillRow(raw)
	if err != nil {
		return "", false, skillDecodeError(key, err)
	}
	if m != nil {
		m.CacheBody(key, row.Skill, gen) // only if no newer value arrived meanwhile
	}
	return row.Skill, true, nil
}

func skillDecodeError(key string, err error) error {
	return contract.UnavailableMsg(fmt.Errorf("decode stored skill %s: %w", ids.Unquoted(key), err))
}

// storedPrompt returns the prompt row stored at name, from the catalog
// when it can vouch for it, else from the engine.
func (r *Registry) storedPrompt(ctx context.Context, name string) (row promptRow, found bool, err error) {
	if m := r.prompts.mirror; m != nil {
		if e, found, authoritative := m.Get(name); authoritative {
			switch {
			case !found:
				return promptRow{}, false, nil
			case e.Err != nil:
				return promptRow{}, false, promptDecodeError(name, e.Err)
			default:
				return e.Summary.(promptRow), true, nil
			}
		}
	}
	raw, err := r.prompts.get(ctx, name)
	if err != nil || raw == nil {
		return promptRow{}, false, err
	}
	row, err = decodePromptRow(raw)
	if err != nil {
		return promptRow{}, false, promptDecodeError(name, err)
	}
	return row, true, nil
}

func promptDecodeError(name string, err error) error {
	return contract.UnavailableMsg(fmt.Errorf("decode stored prompt %s: %w", ids.Unquoted(name), err))
}

// mirroredPromptRows returns the prompt rows from the catalog, sorted by
// name, or ok false when it cannot vouch for them.
func (r *Registry) mirroredPromptRows() ([]promptRow, bool) {
	return mirrored(r.prompts.mirror, func(a, b promptRow) int { return strings.Compare(a.Name, b.Name) })
}

// mirrored returns a scope's summaries as T, sorted stably by cmp, or ok
// false when there is no mirror or it is not loaded.
func mirrored[T any](m *catalog.Scope, cmp func(a, b T) int) (out []T, ok bool) {
	if m == nil {
		return nil, false
	}
	summaries, ok := m.Summaries()
	if !ok {
		return nil, false
	}
	out = make([]T, len(summaries))
	for i, s := range summaries {
		out[i] = s.(T)
	}
	slices.SortStableFunc(out, cmp)
	return out, true
}
