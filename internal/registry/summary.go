package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
)

// skillSummary is everything listings need from a stored skill: the
// index bullet (title and first paragraph), the body's size and the
// registration time. Bodies themselves are never needed to list.
type skillSummary struct {
	bullet
	registeredAt string
	bytes        int
	sha256       string // of the body, hex (docs/decisions.md D41)
}

func summarize(row skillRow) skillSummary {
	return skillSummary{bullet: newBullet(indexEntry{id: row.ID, body: row.Skill}), registeredAt: row.RegisteredAt,
		bytes: len(row.Skill), sha256: sha256Hex(row.Skill)}
}

// sha256Hex is the hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// summaryCache remembers the summaries of the rows of the last listing,
// keyed by a seeded hash of each row's exact bytes. A listing then costs
// one scan and one hash per row, and JSON-decodes only rows it has not
// seen: with 10,000 skills of 4 KiB that is the difference between
// decoding 40 MB and hashing it. Identical bytes always decode to the same
// row, so a hit is never stale; the cache holds only the last listing's
// rows, so it cannot grow beyond the scope's size.
type summaryCache struct {
	seed    maphash.Seed
	mu      sync.Mutex
	entries map[uint64]skillSummary

	// sorted is the last result, valid for the catalog version it was
	// computed from (docs/decisions.md D19): while the scope's mirror has
	// not changed, a listing costs nothing. Callers treat it as read-only.
	sorted        []skillSummary
	sortedVersion uint64
	sortedValid   bool
}

func newSummaryCache() *summaryCache {
	return &summaryCache{seed: maphash.MakeSeed(), entries: map[uint64]skillSummary{}}
}

// skillSummaries lists the decodable skill rows in state, sorted by id.
// Undecodable rows are skipped, as in the Rust worker.
func (r *Registry) skillSummaries(ctx context.Context) ([]skillSummary, error) {
	c := r.summaries
	if mirror := r.skills.mirror; mirror != nil && mirror.Valid() {
		version := mirror.Version()
		c.mu.Lock()
		hit := c.sortedValid && c.sortedVersion == version
		sorted := c.sorted
		c.mu.Unlock()
		if hit {
			return sorted, nil
		}
		// The version was read before the summaries: a change made
		// meanwhile has a newer version, so this result is never reused
		// past it.
		if out, ok := r.mirroredSkillSummaries(); ok {
			c.mu.Lock()
			c.sorted, c.sortedVersion, c.sortedValid = out, version, true
			c.mu.Unlock()
			return out, nil
		}
	}
	values, err := r.skills.values(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	old := c.entries
	c.mu.Unlock()
	fresh := make(map[uint64]skillSummary, len(values))
	out := make([]skillSummary, 0, len(values))
	for _, v := range values {
		h := maphash.Bytes(c.seed, v)
		s, ok := old[h]
		if !ok {
			row, err := decodeSkillRow(v)
			if err != nil {
				continue
			}
			s = summarize(row)
		}
		fresh[h] = s
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b skillSummary) int { return strings.Compare(a.id, b.id) })
	c.mu.Lock()
	c.entries = fresh
	c.mu.Unlock()
	return out, nil
}
