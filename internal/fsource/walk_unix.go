//go:build unix

package fsource

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// fileKey identifies a file by device and inode, so that a directory met
// again through a symbolic link is recognised (docs/decisions.md D25).
type fileKey struct {
	dev, ino uint64
}

func fileKeyOf(_ string, fi fs.FileInfo) (fileKey, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, errors.New("no device and inode numbers")
	}
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}

// openNoBlock opens a file for reading without blocking: opening a FIFO
// with no writer would otherwise wait for one. The caller checks what it
// opened with f.Stat.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
