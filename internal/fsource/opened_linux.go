package fsource

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// openedPath is the real path of an open file, as the kernel names it:
// what was opened, whatever its name points to now.
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
	if !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
		return "", errors.New("the open file has no path: " + p)
	}
	return p, nil
}
