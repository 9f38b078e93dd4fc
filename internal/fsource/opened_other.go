//go:build !linux

package fsource

import (
	"errors"
	"os"
)

// openedPath is not available here: the caller resolves the file's name
// and compares it with what was opened.
func openedPath(*os.File) (string, error) {
	return "", errors.New("no name for an open file on this system")
}
