package catalog

import (
	"os"
	"sync"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// fileBodies keeps the bodies of skill files by path, each valid while the
// file keeps the stamp it had when read (size, mtime, mode and, where
// known, inode and status-change time; docs/decisions.md D20): a read
// costs one stat instead of an open and a read, and an edit, a
// replacement or a file made unreadable is still seen on the next read.
// It holds at most budget bytes; when full it starts over.
type fileBodies struct {
	budget int64

	mu   sync.Mutex
	used int64
	byID map[string]fileBody
}

type fileBody struct {
	stamp fsource.Stamp
	body  string
}

func newFileBodies(budget int64) *fileBodies {
	return &fileBodies{budget: budget, byID: map[string]fileBody{}}
}

// read returns the body of the file at path, from memory when the file is
// unchanged, else through readBody: the source's ReadBody, which applies
// every check of the overlay (regular files only, the size cap, UTF-8)
// and checks that the file it opened lies inside the roots, so a link or
// directory swapped in since the listing never serves a file outside
// them. A body is kept by the stamp of the file its name leads to, so a
// swapped-in file has another stamp and is read, and checked, afresh.
//
// stamp is the file's Stamp as this read found it, for the caller to
// compare with the listing's.
func (c *fileBodies) read(path string, readBody func(string) (string, error)) (body string, stamp fsource.Stamp, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", stamp, err
	}
	stamp = fsource.StampOf(fi)
	if fi.Mode().IsRegular() {
		c.mu.Lock()
		b, ok := c.byID[path]
		c.mu.Unlock()
		if ok && b.stamp.Equal(stamp) {
			return b.body, stamp, nil
		}
	}
	body, err = readBody(path)
	if err != nil {
		return "", stamp, err
	}
	c.keep(path, fileBody{stamp: stamp, body: body})
	return body, stamp, nil
}

func (c *fileBodies) keep(path string, b fileBody) {
	size := int64(len(b.body))
	if size > c.budget || !Settled(b.stamp) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byID[path]; ok {
		c.used -= int64(len(old.body))
	}
	if c.used+size > c.budget {
		c.byID, c.used = map[string]fileBody{}, 0
	}
	c.byID[path] = b
	c.used += size
}
