//go:build !unix

package fsource

import (
	"io/fs"
	"os"
	"path/filepath"
)

// fileKey identifies a directory by its cleaned real path where device
// and inode numbers are not available (Windows), so that a directory met
// again through a link is still recognised (docs/decisions.md D25).
type fileKey struct {
	path string
}

func fileKeyOf(path string, _ fs.FileInfo) (fileKey, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fileKey{}, err
	}
	return fileKey{path: filepath.Clean(real)}, nil
}

// openNoBlock opens a file for reading. Windows has no FIFOs in the file
// system that an open could block on; the caller still checks what it
// opened with f.Stat.
func openNoBlock(path string) (*os.File, error) {
	return os.Open(path)
}
