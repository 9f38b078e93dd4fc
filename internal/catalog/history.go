package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// The history of stored skills (docs/decisions.md D83): one key per id in
// the history scope, "<skills scope>.history", holding every revision's
// record, oldest first, and the bodies of the newest RevisionsKept. The
// current revision also rides on the row (SkillRow.Revision), so the
// catalog's mirror knows it and a re-register of an unchanged body costs
// the one state::set it cost before D83.

// maxRevisionRecords bounds the records kept per id, oldest dropped first.
const maxRevisionRecords = 1000

// historyLocks order the history writes of one id within the process,
// so that two concurrent changes on one replica never take one number;
// across replicas, writes are last-writer-wins (D83). Ids share the
// locks by a hash: a change waits at most for changes of other ids
// that landed on the same lock.
type historyLocks struct {
	seed  maphash.Seed
	locks [64]sync.Mutex
}

func (h *historyLocks) of(id string) *sync.Mutex {
	return &h.locks[maphash.String(h.seed, id)%uint64(len(h.locks))]
}

// HistoryScopeSuffix is appended to the skills scope to name the scope of
// their history (D83): "skills" keeps its history in "skills.history".
const HistoryScopeSuffix = ".history"

// Revision is one record of a stored skill's history.
type Revision struct {
	Revision int64  `json:"revision"`
	At       string `json:"at"`     // when it was written, as registered_at (D11)
	SHA256   string `json:"sha256"` // hex digest of the body
	Bytes    int64  `json:"bytes"`
	Worker   string `json:"worker"` // the writer's _caller_worker_id; "" when the engine sent none
	// Body is the revision's body while it is kept (the newest
	// revisions_kept records); nil once dropped.
	Body *string `json:"body,omitempty"`
}

// historyRow is the value stored per id in the history scope.
type historyRow struct {
	ID        string     `json:"id"`
	Revisions []Revision `json:"revisions"` // oldest first
}

// SkillWrite is a body to store as a revision: the row (its Revision is
// assigned here), the writer, and whether it is a new revision even when
// its body equals the stored one (a rollback).
type SkillWrite struct {
	Row    SkillRow
	Worker string
	Force  bool
}

// PutSkillRevision is PutSkillVersion numbering the body (D83): a body
// equal to the stored one keeps its revision and writes nothing but the
// row (the mirror knows both, so no read is made); any other body reads
// the history, appends the next revision, drops the bodies past the kept
// count, writes the history, then the row. It returns the row's revision.
//
// With no history kept (revisions_kept 0) it is PutSkillVersion, one
// state::set, and the revision is 0.
func (v *View) PutSkillRevision(ctx context.Context, w SkillWrite) (int64, WriteVersion, error) {
	row := w.Row
	if v.revisionsKept == 0 {
		ver, err := v.PutSkillVersion(ctx, row)
		return 0, ver, err
	}
	meta := MetaOf(row.ID, row.Skill)
	rev, same := v.storedRevision(row.ID, meta.SHA256)
	if !same || w.Force {
		mu := v.historyLocks.of(row.ID)
		mu.Lock()
		defer mu.Unlock() // until the row is written: the next change reads its history after it
		n, err := v.appendRevision(ctx, row, meta, w)
		if err != nil {
			return 0, WriteVersion{}, err
		}
		rev = n
	}
	row.Revision = rev
	var own *Decoded
	if v.skills != nil {
		own = &Decoded{Key: row.ID, Body: row.Skill,
			Summary: StateSkill{ID: row.ID, RegisteredAt: row.RegisteredAt, Revision: rev, Meta: meta}}
	}
	ver, err := v.skillRows.set(ctx, row.ID, row, own)
	return rev, ver, err
}

// storedRevision is the revision of the row the mirror holds at id, when
// the mirror can vouch that its body has digest sum and it has a revision.
func (v *View) storedRevision(id, sum string) (rev int64, same bool) {
	if v.skills == nil {
		return 0, false
	}
	e, _, found, authoritative := v.skills.get(id)
	if !found || !authoritative || e.Err != nil {
		return 0, false
	}
	s, ok := e.Summary.(StateSkill)
	if !ok || s.Revision == 0 || s.SHA256 != sum {
		return 0, false
	}
	return s.Revision, true
}

// appendRevision records row's body as the next revision of its id and
// returns its number; when not forced and the last record already has
// this body (a row whose mirror could not vouch for it), that revision.
func (v *View) appendRevision(ctx context.Context, row SkillRow, meta Meta, w SkillWrite) (int64, error) {
	h, _, err := v.history(ctx, row.ID)
	if err != nil {
		return 0, err
	}
	var next int64 = 1
	if n := len(h.Revisions); n > 0 {
		last := h.Revisions[n-1]
		if !w.Force && last.SHA256 == meta.SHA256 && last.Body != nil {
			return last.Revision, nil
		}
		next = last.Revision + 1
	}
	body := row.Skill
	h.ID = row.ID
	h.Revisions = append(h.Revisions, Revision{Revision: next, At: row.RegisteredAt, SHA256: meta.SHA256,
		Bytes: meta.Size, Worker: w.Worker, Body: &body})
	h.Revisions = trimHistory(h.Revisions, v.revisionsKept)
	if _, err := v.historyRows.set(ctx, row.ID, h, nil); err != nil {
		return 0, err
	}
	return next, nil
}

// trimHistory keeps the newest maxRevisionRecords records and the bodies
// of the newest kept of them.
func trimHistory(revs []Revision, kept int) []Revision {
	if len(revs) > maxRevisionRecords {
		revs = revs[len(revs)-maxRevisionRecords:]
	}
	for i := range len(revs) - kept {
		revs[i].Body = nil
	}
	return revs
}

// history reads the history of id; found is false when it has none.
func (v *View) history(ctx context.Context, id string) (historyRow, bool, error) {
	raw, err := v.historyRows.get(ctx, id)
	if err != nil || raw == nil {
		return historyRow{}, false, err
	}
	var h historyRow
	if err := json.Unmarshal(raw, &h); err != nil {
		return historyRow{}, false, contract.UnavailableMsg(fmt.Errorf("decode the history of skill %s: %w", ids.Unquoted(id), err))
	}
	return h, true, nil
}

// SkillHistory returns the revisions of the stored skill id, newest
// first; an id with no history is not_found naming it.
func (v *View) SkillHistory(ctx context.Context, id string) ([]Revision, error) {
	if v.revisionsKept == 0 {
		return nil, contract.NotFoundf("Skill not found: %s has no revision history (revisions_kept is 0: the worker keeps none)", ids.Unquoted(id))
	}
	h, found, err := v.history(ctx, id)
	if err != nil {
		return nil, err
	}
	if !found || len(h.Revisions) == 0 {
		return nil, contract.NotFoundf("Skill not found: %s has no revision history", ids.Unquoted(id))
	}
	slices.Reverse(h.Revisions)
	return h.Revisions, nil
}

// SkillRevisionBody is the kept body of revision n of skill id: not_found
// naming them when the id has no history, no such revision, or its body
// is no longer kept.
func (v *View) SkillRevisionBody(ctx context.Context, id string, n int64) (string, error) {
	revs, err := v.SkillHistory(ctx, id)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(revs, func(r Revision) bool { return r.Revision == n })
	switch {
	case i < 0:
		return "", contract.NotFoundf("Revision not found: skill %s has no revision %d (its revisions are %d to %d)",
			ids.Unquoted(id), n, revs[len(revs)-1].Revision, revs[0].Revision)
	case revs[i].Body == nil:
		return "", contract.NotFoundf("Revision not found: the body of revision %d of skill %s is no longer kept (revisions_kept keeps the newest %d)",
			n, ids.Unquoted(id), v.revisionsKept)
	}
	return *revs[i].Body, nil
}
