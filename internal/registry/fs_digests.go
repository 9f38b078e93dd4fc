package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// fsDigests keeps the SHA-256 of each listed prompt file, valid while the
// snapshot reports the Stamp it was computed at (docs/decisions.md D41):
// a listing reads a file only when it changed. (Skill files' digests are
// the view's, package catalog.)
type fsDigests struct {
	mu     sync.Mutex
	byPath map[string]fsDigest
}

type fsDigest struct {
	stamp fsource.Stamp
	sum   string
}

func newFSDigests() *fsDigests { return &fsDigests{byPath: map[string]fsDigest{}} }

// listedFile is a file a listing names, as its snapshot saw it.
type listedFile struct {
	Path  string
	Stamp fsource.Stamp
}

func listedPromptFiles(prompts []fsource.Prompt) []listedFile {
	out := make([]listedFile, len(prompts))
	for i, p := range prompts {
		out[i] = listedFile{Path: p.Path, Stamp: p.Stamp}
	}
	return out
}

// sums are the hex SHA-256 of each listed file, by path ("" for a file
// that cannot be read). Files no longer listed are forgotten.
func (d *fsDigests) sums(files []listedFile, readFile func(string) ([]byte, error)) map[string]string {
	d.mu.Lock()
	old := d.byPath
	d.mu.Unlock()
	out := make(map[string]string, len(files))
	next := make(map[string]fsDigest, len(files))
	for _, s := range files {
		if c, ok := old[s.Path]; ok && c.stamp.Equal(s.Stamp) {
			out[s.Path], next[s.Path] = c.sum, c
			continue
		}
		b, err := readFile(s.Path)
		if err != nil {
			out[s.Path] = ""
			continue
		}
		h := sha256.Sum256(b)
		out[s.Path] = hex.EncodeToString(h[:])
		if time.Since(s.Stamp.ModTime()) >= racyWindow { // a file written this instant may change again at the same size and mtime
			next[s.Path] = fsDigest{stamp: s.Stamp, sum: out[s.Path]}
		}
	}
	d.mu.Lock()
	d.byPath = next
	d.mu.Unlock()
	return out
}

// sha256Hex is the hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
