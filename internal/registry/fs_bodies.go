package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// fsBodies keeps the bodies of fs skills by path, each valid while the
// file keeps the stamp it had when read (size, mtime, mode and, where
// known, inode and status-change time; docs/decisions.md D20): a read
// costs one stat instead of an open and a read, and an edit, a
// replacement or a file made unreadable is still seen on the next read.
// It holds at most budget bytes; when full it starts over.
type fsBodies struct {
	budget int64

	mu   sync.Mutex
	used int64
	byID map[string]fsBody
}

type fsBody struct {
	stamp fsource.Stamp
	body  string
}

func newFSBodies(budget int64) *fsBodies {
	return &fsBodies{budget: budget, byID: map[string]fsBody{}}
}

// racyWindow is how recent a file's mtime may be for its body to be kept:
// a file written again within the same clock tick, at the same size,
// would look unchanged (the rule git uses for its index).
const racyWindow = 2 * time.Second

// errEscaped is a listed file that has become a symbolic link leading out
// of its root since it was listed.
var errEscaped = errors.New("the file now leads outside its root through a symbolic link; it is skipped until the next scan")

// read returns the body of the file at path, from memory when the file is
// unchanged, else through fsource.ReadBody (which applies every check of
// the overlay: regular files only, the size cap, UTF-8). A file that has
// become a symbolic link since it was listed is checked against the roots
// again (contained), so a swapped link never serves a file outside them.
func (c *fsBodies) read(path string, contained func(string) bool) (string, error) {
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 && !contained(path) {
		return "", fmt.Errorf("read %s: %w", path, errEscaped)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode().IsRegular() {
		c.mu.Lock()
		b, ok := c.byID[path]
		c.mu.Unlock()
		if ok && b.stamp.Equal(fsource.StampOf(fi)) {
			return b.body, nil
		}
	}
	body, err := fsource.ReadBody(path)
	if err != nil {
		return "", err
	}
	c.keep(path, fsBody{stamp: fsource.StampOf(fi), body: body})
	return body, nil
}

func (c *fsBodies) keep(path string, b fsBody) {
	size := int64(len(b.body))
	if size > c.budget || time.Since(b.stamp.ModTime()) < racyWindow {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byID[path]; ok {
		c.used -= int64(len(old.body))
	}
	if c.used+size > c.budget {
		c.byID, c.used = map[string]fsBody{}, 0
	}
	c.byID[path] = b
	c.used += size
}
