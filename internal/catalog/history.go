package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// The history of stored skills and prompts (docs/decisions.md D83): one
// key per id or name in a history scope, "<scope>.history", holding every
// revision's record, oldest first, and the bodies of the newest
// RevisionsKept. The current revision also rides on the row
// (SkillRow.Revision, PromptRow.Revision), so the catalog's mirror knows
// it and a re-register of an unchanged body costs the one state::set it
// cost before D83. history_skills.go and history_prompts.go number the
// two kinds of rows over a revisionLog each.

// maxRevisionRecords bounds the records kept per id, oldest dropped first.
const maxRevisionRecords = 1000

// HistoryScopeSuffix is appended to a content scope to name the scope of
// its history (D83): "skills" keeps its history in "skills.history".
const HistoryScopeSuffix = ".history"

// Revision is one record of a stored skill's or prompt's history.
type Revision struct {
	Revision int64  `json:"revision"`
	At       string `json:"at"`     // when it was written, as registered_at (D11)
	SHA256   string `json:"sha256"` // hex digest of the body (a prompt's: its definition, D41)
	Bytes    int64  `json:"bytes"`
	Worker   string `json:"worker"` // the writer's _caller_worker_id; "" when the engine sent none
	// Body is the revision's body while it is kept (the newest
	// revisions_kept records); nil once dropped. A prompt's is its
	// definition as JSON.
	Body *string `json:"body,omitempty"`
}

// historyRow is the value stored per id in a history scope.
type historyRow struct {
	ID        string     `json:"id"`
	Revisions []Revision `json:"revisions"` // oldest first
}

// revisionLog is the history scope of one content scope.
type revisionLog struct {
	rows  store
	kept  int    // bodies kept per key; 0 keeps no history
	noun  string // "skill" or "prompt", for error texts
	seed  maphash.Seed
	locks [64]sync.Mutex
}

func newRevisionLog(caller Caller, scope string, cfg ViewConfig, noun string) *revisionLog {
	return &revisionLog{rows: store{caller: caller, scope: scope + HistoryScopeSuffix, timeout: cfg.Timeout},
		kept: cfg.RevisionsKept, noun: noun, seed: maphash.MakeSeed()}
}

// lockOf orders the history writes of one key within the process, so
// that two concurrent changes on one replica never take one number;
// across replicas, writes are last-writer-wins (D83). Keys share the
// locks by a hash: a change waits at most for changes of other keys that
// landed on the same lock.
func (l *revisionLog) lockOf(key string) *sync.Mutex {
	return &l.locks[maphash.String(l.seed, key)%uint64(len(l.locks))]
}

// write stores a row through put with its revision: stored when the
// mirror vouched that the row at key has this body (same) and it is not
// forced, with no other call; else the history is read, the next
// revision appended (or, unforced, the last one kept when it has this
// body), bodies past the kept count dropped, the history written, and
// then the row, all under key's lock.
func (l *revisionLog) write(ctx context.Context, key string, stored int64, same, force bool, rec Revision,
	put func(rev int64) (WriteVersion, error)) (int64, WriteVersion, error) {
	if same && !force {
		ver, err := put(stored)
		return stored, ver, err
	}
	mu := l.lockOf(key)
	mu.Lock()
	defer mu.Unlock() // until the row is written: the next change reads its history after it
	rev, err := l.append(ctx, key, rec, force)
	if err != nil {
		return 0, WriteVersion{}, err
	}
	ver, err := put(rev)
	return rev, ver, err
}

// append records rec as the next revision of key and returns its number.
func (l *revisionLog) append(ctx context.Context, key string, rec Revision, force bool) (int64, error) {
	h, _, err := l.read(ctx, key)
	if err != nil {
		return 0, err
	}
	rec.Revision = 1
	if n := len(h.Revisions); n > 0 {
		last := h.Revisions[n-1]
		if !force && last.SHA256 == rec.SHA256 && last.Body != nil {
			return last.Revision, nil
		}
		rec.Revision = last.Revision + 1
	}
	h.ID = key
	h.Revisions = trimHistory(append(h.Revisions, rec), l.kept)
	if _, err := l.rows.set(ctx, key, h, nil); err != nil {
		return 0, err
	}
	return rec.Revision, nil
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

// read reads the history of key; found is false when it has none.
func (l *revisionLog) read(ctx context.Context, key string) (historyRow, bool, error) {
	raw, err := l.rows.get(ctx, key)
	if err != nil || raw == nil {
		return historyRow{}, false, err
	}
	var h historyRow
	if err := json.Unmarshal(raw, &h); err != nil {
		return historyRow{}, false, contract.UnavailableMsg(fmt.Errorf("decode the history of %s %s: %w", l.noun, ids.Unquoted(key), err))
	}
	return h, true, nil
}

// list returns the revisions of key, newest first; a key with no history
// is not_found naming it.
func (l *revisionLog) list(ctx context.Context, key string) ([]Revision, error) {
	notFound := strings.ToUpper(l.noun[:1]) + l.noun[1:] + " not found: %s has no revision history"
	if l.kept == 0 {
		return nil, contract.NotFoundf(notFound+" (revisions_kept is 0: the worker keeps none)", ids.Unquoted(key))
	}
	h, found, err := l.read(ctx, key)
	if err != nil {
		return nil, err
	}
	if !found || len(h.Revisions) == 0 {
		return nil, contract.NotFoundf(notFound, ids.Unquoted(key))
	}
	slices.Reverse(h.Revisions)
	return h.Revisions, nil
}

// body is the kept body of revision n of key: not_found naming them when
// the key has no history, no such revision, or its body is no longer
// kept.
func (l *revisionLog) body(ctx context.Context, key string, n int64) (string, error) {
	revs, err := l.list(ctx, key)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(revs, func(r Revision) bool { return r.Revision == n })
	switch {
	case i < 0:
		return "", contract.NotFoundf("Revision not found: %s %s has no revision %d (its revisions are %d to %d)",
			l.noun, ids.Unquoted(key), n, revs[len(revs)-1].Revision, revs[0].Revision)
	case revs[i].Body == nil:
		return "", contract.NotFoundf("Revision not found: the body of revision %d of %s %s is no longer kept (revisions_kept keeps the newest %d)",
			n, l.noun, ids.Unquoted(key), l.kept)
	}
	return *revs[i].Body, nil
}

// vouched is the summary the mirror s holds at key, when it can vouch for
// it without reading its body; nil otherwise (no mirror, not loaded, no
// such key, a row that does not decode).
func vouched(s *Scope, key string) any {
	if s == nil {
		return nil
	}
	e, _, found, authoritative := s.get(key)
	if !found || !authoritative || e.Err != nil {
		return nil
	}
	return e.Summary
}
