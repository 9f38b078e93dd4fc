//go:build linux || darwin

package fsource

import (
	"io/fs"
	"syscall"
)

// changeKey is the device, inode and status-change time of a file.
type changeKey struct {
	dev, ino        uint64
	ctimeS, ctimeNS int64
}

func changeOf(fi fs.FileInfo) changeKey {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return changeKey{}
	}
	c := statusChange(st)
	return changeKey{dev: uint64(st.Dev), ino: uint64(st.Ino), ctimeS: int64(c.Sec), ctimeNS: int64(c.Nsec)} //nolint:unconvert // the widths differ by architecture
}

// SameInode reports whether two stamps are of one file (device and
// inode), whatever its content: a write in place, not a replacement.
func (s Stamp) SameInode(o Stamp) bool {
	return s.change.ino != 0 && s.change.dev == o.change.dev && s.change.ino == o.change.ino
}
