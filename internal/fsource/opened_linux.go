package fsource

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// openedPath is the real path of an open file, as the kernel names it:
// what was opened, whatever its name points to now. A file unlinked or
// renamed over since it was opened (an editor's atomic save) is named
// where it was, which is what decides its containment.
func openedPath(f *os.File) (string, error) {
	conn, err := f.SyscallConn() // f.Fd would put the file in blocking mode
	if err != nil {
		return "", err
	}
	var p string
	var rerr error
	if err := conn.Control(func(fd uintptr) {
		p, rerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	}); err != nil {
		return "", err
	}
	if rerr != nil {
		return "", rerr
	}
	p = strings.TrimSuffix(p, " (deleted)")
	if !filepath.IsAbs(p) {
		return "", errors.New("the open file has no path in this file system: " + p)
	}
	return p, nil
}
