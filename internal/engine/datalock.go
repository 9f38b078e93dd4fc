package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The data directory's lock (docs/decisions.md D66): a process that keeps
// state in DataDir holds an exclusive lock on DataDir/LockFile for as long
// as it runs, so a second engine started on the same directory (two
// `make run`s on different ports share .skills-data) refuses at start
// instead of overwriting state the first one acknowledged. The lock is
// the kernel's (flock on Linux and macOS): it is released when the
// process ends, however it ends, kill -9 included; the file itself stays
// and says who held it last.

// LockFile is the lock's name inside DataDir.
const LockFile = "engine.lock"

// DataDirInUseError is Start's error when another process holds DataDir.
type DataDirInUseError struct {
	Dir    string
	Holder string // "pid 123: skills dev --data x", or "" when the file names none
}

func (e *DataDirInUseError) Error() string {
	holder := "another process"
	if e.Holder != "" {
		holder = "another process (" + e.Holder + ")"
	}
	return fmt.Sprintf("the data directory %s is in use by %s: two engines on one directory would overwrite each other's state; stop that one, or give this one another directory with --data", e.Dir, holder)
}

// dataLock is a held lock on a data directory.
type dataLock struct{ f *os.File }

// lockDataDir takes the lock on dir, which exists, and writes this
// process's pid and command into the lock file for a second process's
// message. Another holder is a *DataDirInUseError.
func lockDataDir(dir string) (*dataLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("engine: data directory lock %s: %w", path, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine: data directory lock %s: %w", path, err)
	}
	if !held {
		b, _ := os.ReadFile(path)
		f.Close()
		return nil, &DataDirInUseError{Dir: dir, Holder: holderOf(b)}
	}
	// Best effort: the lock holds whether or not the note is written.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(holderNote()), 0)
	}
	return &dataLock{f: f}, nil
}

// release gives the lock up (closing the file releases it).
func (l *dataLock) release() {
	if l != nil {
		l.f.Close()
	}
}

// holderNote is what the lock file says of this process: "pid N\n" and
// the command line.
func holderNote() string {
	return "pid " + strconv.Itoa(os.Getpid()) + "\n" + strings.Join(os.Args, " ") + "\n"
}

// holderOf reads a holderNote back as "pid N: command", "" if it is not one.
func holderOf(b []byte) string {
	pidLine, cmd, _ := strings.Cut(string(b), "\n")
	pid, ok := strings.CutPrefix(pidLine, "pid ")
	if !ok {
		return ""
	}
	if _, err := strconv.Atoi(pid); err != nil {
		return ""
	}
	if cmd = strings.TrimSpace(cmd); cmd != "" {
		return "pid " + pid + ": " + cmd
	}
	return "pid " + pid
}
