package catalog

import (
	"slices"
	"sync"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// Files are not versioned by the registry: their history is the
// filesystem's or git's (issue 31, docs/decisions.md D86). What the view
// keeps instead is a short record of the digest changes it saw in the
// skill files it serves, for skills::diagnostics.

// KeptFileChanges is how many file digest changes a view keeps, the
// newest; older ones are counted, not kept (FileChanges).
const KeptFileChanges = 100

// FileChange is one change of a served skill file's content: the view
// read it again (its Stamp moved) and its digest differed from the one
// it last served for that path.
type FileChange struct {
	ID             string `json:"id"`
	Path           string `json:"path"`
	PreviousSHA256 string `json:"previous_sha256"`
	PreviousBytes  int64  `json:"previous_bytes"`
	SHA256         string `json:"sha256"`
	Bytes          int64  `json:"bytes"`
	// At is when the view saw the change, in the registered_at layout
	// (Timestamp, D11): the time of the listing that read the new bytes.
	At string `json:"at"`
}

// servedDigest is what the view last served of a file, and the scan it
// was last served from (fileChanges.scans).
type servedDigest struct {
	sum  string
	size int64
	scan uint64
}

// fileChanges follows the digests of the skill files each listing
// serves and keeps the last KeptFileChanges changes. It is fed by merge
// with the Metas the listing read (the view's one judgement of a file's
// content), never by reading a file itself.
type fileChanges struct {
	mu      sync.Mutex
	version uint64                   // the file scan's version last compared
	scans   uint64                   // scans compared; 0: none yet
	seen    map[string]*servedDigest // by path: the files served
	ring    []FileChange             // oldest first, at most KeptFileChanges
	total   uint64                   // every change seen, kept or not
}

func newFileChanges() *fileChanges {
	return &fileChanges{seen: map[string]*servedDigest{}}
}

// note compares the files a listing serves from the scan at version,
// with the Metas it read of them (in order), to those last compared. A
// scan no newer than the last compared one is not compared again: two
// listings built at once from an older and a newer scan would otherwise
// record a change and its undoing. A file that could not be read (no
// digest) keeps the digest last served; a file no longer served is
// forgotten, so what is kept is bounded by the files served. The
// digests are updated in place: a rescan of thousands of unchanged files
// costs a lookup each and no allocation (BENCHMARKS.md, D86).
func (c *fileChanges) note(version uint64, served []fsource.Skill, metas []Meta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scans > 0 && version <= c.version {
		return
	}
	c.version = version
	c.scans++
	live := 0
	var at string
	for i, f := range served {
		m := metas[i]
		d := c.seen[f.Path]
		switch {
		case d == nil && m.SHA256 == "":
			continue
		case d == nil:
			c.seen[f.Path] = &servedDigest{sum: m.SHA256, size: m.Size, scan: c.scans}
			live++
			continue
		}
		d.scan = c.scans
		live++
		if m.SHA256 == "" || m.SHA256 == d.sum {
			continue
		}
		if at == "" {
			at = Timestamp(time.Now())
		}
		c.record(FileChange{ID: f.ID, Path: f.Path, PreviousSHA256: d.sum, PreviousBytes: d.size,
			SHA256: m.SHA256, Bytes: m.Size, At: at})
		d.sum, d.size = m.SHA256, m.Size
	}
	if live < len(c.seen) {
		for path, d := range c.seen {
			if d.scan != c.scans {
				delete(c.seen, path)
			}
		}
	}
}

// record keeps ch, dropping the oldest kept change when full.
func (c *fileChanges) record(ch FileChange) {
	c.total++
	if len(c.ring) == KeptFileChanges {
		c.ring = slices.Delete(c.ring, 0, 1)
	}
	c.ring = append(c.ring, ch)
}

// FileChanges returns the kept digest changes of the skill files the
// view serves, newest first, and how many older ones were not kept
// (docs/decisions.md D86). A change is seen when a listing reads the
// file again: every change the watch reports leads to one (the
// on-change events are sent from it), and two changes between listings
// are seen as one.
func (v *View) FileChanges() (changes []FileChange, omitted uint64) {
	c := v.fileChanges
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ring) == 0 {
		return nil, c.total
	}
	out := make([]FileChange, len(c.ring))
	for i, ch := range c.ring {
		out[len(out)-1-i] = ch
	}
	return out, c.total - uint64(len(c.ring))
}
