package mcpskills

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// mcpDigests keeps the digests of MCP skill files between listings: a
// synthesised SKILL.md's by its body's digest and description, a folder
// file's by its stamp (size, mtime, mode, inode, ctime). Entries live in
// two generations: each first page of skills/list starts a new one, and
// what two listings in a row did not touch is forgotten. Between
// listings (skills/get of many skills, none listed) a generation that
// grows past twice what was kept from one listing to the next, and past
// minDigests, starts the next one too (D64): churn never grows them
// without bound.
type mcpDigests struct {
	mu                    sync.Mutex
	synthCur, prev        map[string]keptSynth
	fileCur, fprev        map[string]keptFile
	synthLimit, fileLimit int
	synthKept, filesKept  int // digests kept since the last listing
}

// minDigests is how many digests of each kind a generation holds at least
// before it is turned over between listings.
const minDigests = 1 << 14

type keptSynth struct {
	key  string
	file mcpSkillFile
}

type keptFile struct {
	stamp catalog.Stamp
	sum   string
	size  int64
}

func newMCPDigests() *mcpDigests {
	return &mcpDigests{synthCur: map[string]keptSynth{}, prev: map[string]keptSynth{},
		fileCur: map[string]keptFile{}, fprev: map[string]keptFile{},
		synthLimit: minDigests, fileLimit: minDigests}
}

// rotate starts a generation, on a listing's first page.
func (d *mcpDigests) rotate() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.synthLimit, d.fileLimit = max(minDigests, 2*d.synthKept), max(minDigests, 2*d.filesKept)
	d.synthKept, d.filesKept = 0, 0
	d.prev, d.synthCur = d.synthCur, map[string]keptSynth{}
	d.fprev, d.fileCur = d.fileCur, map[string]keptFile{}
}

// Len is how many digests of each kind are kept, in both generations.
func (d *mcpDigests) Len() (synth, files int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.synthCur) + len(d.prev), len(d.fileCur) + len(d.fprev)
}

// makeRoomLocked turns a generation over when it is full.
func (d *mcpDigests) makeRoomLocked() {
	if len(d.synthCur) >= d.synthLimit {
		d.prev, d.synthCur = d.synthCur, map[string]keptSynth{}
	}
	if len(d.fileCur) >= d.fileLimit {
		d.fprev, d.fileCur = d.fileCur, map[string]keptFile{}
	}
}

// synth is the kept digest of id's synthesised SKILL.md, if key matches.
func (d *mcpDigests) synth(id, key string) (mcpSkillFile, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, ok := d.synthCur[id]
	if !ok {
		if k, ok = d.prev[id]; ok {
			d.synthCur[id] = k
		}
	}
	if !ok || k.key != key {
		return mcpSkillFile{}, false
	}
	return k.file, true
}

func (d *mcpDigests) keepSynth(id, key string, f mcpSkillFile) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.makeRoomLocked()
	d.synthCur[id] = keptSynth{key: key, file: f}
	d.synthKept++
}

// file is the digest and size of a folder file, read only when its stamp
// changed, through readBytes: the source's ReadBytes, which refuses a
// file that lies outside the roots once opened (it may have become a link
// since it was listed). A file not yet catalog.Settled is not kept: it
// may change again without its stamp showing it.
func (d *mcpDigests) file(f catalog.FolderFile, readBytes func(string) ([]byte, error)) (sum string, size int64, err error) {
	d.mu.Lock()
	k, ok := d.fileCur[f.Path]
	if !ok {
		if k, ok = d.fprev[f.Path]; ok {
			d.fileCur[f.Path] = k
		}
	}
	d.mu.Unlock()
	if ok && k.stamp.Equal(f.Stamp) {
		return k.sum, k.size, nil
	}
	b, err := readBytes(f.Path)
	if err != nil {
		return "", 0, err
	}
	h := sha256.Sum256(b)
	sum, size = "sha256:"+hex.EncodeToString(h[:]), int64(len(b))
	if catalog.Settled(f.Stamp) {
		d.mu.Lock()
		d.makeRoomLocked()
		d.fileCur[f.Path] = keptFile{stamp: f.Stamp, sum: sum, size: size}
		d.filesKept++
		d.mu.Unlock()
	}
	return sum, size, nil
}
