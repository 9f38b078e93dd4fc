package fsource

import (
	"io/fs"
	"time"
)

// Stamp is what a stat says of a file's content and access, to tell
// whether a body read earlier still stands: size, modification time and
// permission bits everywhere, and where the system reports them the
// inode and the status-change time, which move when the file is replaced
// by a rename (even with its old size and mtime, as cp -p or rsync leave
// it), re-permissioned or re-owned. Equal stamps: the file is as it was.
type Stamp struct {
	size   int64
	mtime  time.Time
	mode   fs.FileMode
	change changeKey
}

// StampOf stamps the file fi describes.
func StampOf(fi fs.FileInfo) Stamp {
	return Stamp{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode(), change: changeOf(fi)}
}

// ModTime is the stamped modification time.
func (s Stamp) ModTime() time.Time { return s.mtime }

// Equal reports whether two stamps describe the same file content and
// access.
func (s Stamp) Equal(o Stamp) bool {
	return s.size == o.size && s.mtime.Equal(o.mtime) && s.mode == o.mode && s.change == o.change
}
