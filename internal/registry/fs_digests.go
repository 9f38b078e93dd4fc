package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// fsDigests keeps the SHA-256 of each listed file, valid while the
// snapshot reports the size and mtime it was computed at
// (docs/decisions.md D41): a listing reads a file only when it changed.
type fsDigests struct {
	mu     sync.Mutex
	byPath map[string]fsDigest
}

type fsDigest struct {
	size  int64
	mtime time.Time
	sum   string
}

func newFSDigests() *fsDigests { return &fsDigests{byPath: map[string]fsDigest{}} }

// sums are the hex SHA-256 of each listed file, by path ("" for a file
// that cannot be read). Files no longer listed are forgotten.
func (d *fsDigests) sums(skills []fsource.Skill) map[string]string {
	d.mu.Lock()
	old := d.byPath
	d.mu.Unlock()
	out := make(map[string]string, len(skills))
	next := make(map[string]fsDigest, len(skills))
	for _, s := range skills {
		if c, ok := old[s.Path]; ok && c.size == s.Size && c.mtime.Equal(s.ModTime) {
			out[s.Path], next[s.Path] = c.sum, c
			continue
		}
		b, err := fsource.ReadFile(s.Path)
		if err != nil {
			out[s.Path] = ""
			continue
		}
		h := sha256.Sum256(b)
		out[s.Path] = hex.EncodeToString(h[:])
		if time.Since(s.ModTime) >= racyWindow { // a file written this instant may change again at the same size and mtime
			next[s.Path] = fsDigest{size: s.Size, mtime: s.ModTime, sum: out[s.Path]}
		}
	}
	d.mu.Lock()
	d.byPath = next
	d.mu.Unlock()
	return out
}
