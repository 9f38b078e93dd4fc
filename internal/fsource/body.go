package fsource

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/iii-hq/skills-go/internal/skillmd"
)

// MaxBodyBytes is the largest skill body the worker serves, registered
// over the protocol or read from a file (256 KiB): the one definition of
// that cap.
const MaxBodyBytes = 262144

// maxFileBytes bounds how much of a matched file is ever read into memory,
// so a stray multi-gigabyte file matched by a broad pattern cannot exhaust
// memory. Larger files are reported as too large without being read.
const maxFileBytes = 16 << 20

// tooLargeError is a file above maxFileBytes.
type tooLargeError struct{ size int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("file is too large to read (%d bytes; max %d)", e.size, maxFileBytes)
}

// ReadBody reads a file fresh and returns its body with any frontmatter
// removed, or an error worded as in docs/reference.md#frontmatter-and-body
// ("read <path>: …", "file <path> has empty body", "file <path> is too
// large (<n> bytes; max 262144)"), with the path made absolute.
//
// A body of only line breaks ('\n' or '\r') counts as empty. A file that
// is not valid UTF-8 fails with a read error naming the offset of the
// first bad byte. A file above 16 MiB is not read at all: its too-large
// error counts the whole file, frontmatter included.
func ReadBody(path string) (string, error) { return readBody(path, nil) }

// ReadBody is the package's ReadBody for a file of this source, with one
// more check, made on the file that was opened rather than on its name:
// it must lie inside a root or an allow_paths directory. A file listed
// inside the roots that has since become, or now passes through, a
// symbolic link leading out of them fails with ErrEscaped, however the
// swap was timed (docs/decisions.md D24).
func (s *Source) ReadBody(path string) (string, error) { return readBody(path, s.openedInside) }

// ReadFile is the package's ReadFile with the check of Source.ReadBody.
func (s *Source) ReadFile(path string) ([]byte, error) { return readMatched(path, s.openedInside) }

// ReadBytes is the package's ReadBytes with the check of Source.ReadBody.
func (s *Source) ReadBytes(path string) ([]byte, error) { return readBytes(path, s.openedInside) }

// openedCheck is a check made on a file once it is open, before it is
// read: nil lets every file through.
type openedCheck func(path string, f *os.File) error

func readBody(path string, check openedCheck) (string, error) {
	_, body, err := readSkill(path, check)
	return body, err
}

// ReadSkill reads a skill file once for both uses of it: raw is the whole
// file (what a listing digests; nil when it could not be read) and body
// and err are what ReadBody would return for it.
func (s *Source) ReadSkill(path string) (raw []byte, body string, err error) {
	return readSkill(path, s.openedInside)
}

func readSkill(path string, check openedCheck) (raw []byte, body string, err error) {
	abs := path
	if a, err := filepath.Abs(path); err == nil {
		abs = a
	}
	b, err := readMatched(path, check)
	if err != nil {
		if tl, ok := errors.AsType[*tooLargeError](err); ok {
			return nil, "", fmt.Errorf("file %s is too large (%d bytes; max %d)", abs, tl.size, MaxBodyBytes)
		}
		return nil, "", fmt.Errorf("read %s: %w", abs, err)
	}
	_, rest, _ := skillmd.SplitFrontmatter(b)
	if len(bytes.Trim(rest, "\r\n")) == 0 {
		return b, "", fmt.Errorf("file %s has empty body", abs)
	}
	if len(rest) > MaxBodyBytes {
		return b, "", fmt.Errorf("file %s is too large (%d bytes; max %d)", abs, len(rest), MaxBodyBytes)
	}
	return b, string(rest), nil
}

// ReadFile reads a matched file whole, with the checks every read makes
// (a regular file, opened without blocking, at most 16 MiB, UTF-8); its
// errors carry no path.
func ReadFile(path string) ([]byte, error) { return readMatched(path, nil) }

// readMatched stats and reads a file, refusing anything that is not a
// regular file without opening it (opening a device can have effects).
func readMatched(path string, check openedCheck) ([]byte, error) {
	if err := statRegular(path); err != nil {
		return nil, err
	}
	return readRegular(path, check)
}

// statRegular refuses, without opening it, a path that is not a regular
// file.
func statRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return unwrapPath(err)
	}
	return checkRegular(fi)
}

// checkRegular refuses a file that is not a regular file, naming its kind.
func checkRegular(fi fs.FileInfo) error {
	switch {
	case fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return errors.New("is a directory")
	default:
		return errors.New("is " + describeIrregular(fi.Mode()) + "; only regular files are served")
	}
}

// ErrNotText is a file read as text that is not UTF-8: a binary file of
// a skill folder (assets/logo.png), which iii:// lists but cannot serve
// as text (docs/decisions.md D69).
var ErrNotText = errors.New("not valid UTF-8 text")

// readRegular reads a regular file and checks that it is UTF-8 text. The
// file is opened without blocking and checked again after opening, so a
// FIFO swapped in after a stat cannot hang the call (docs/decisions.md D25). Errors
// carry no path: callers word their own prefix.
func readRegular(path string, check openedCheck) ([]byte, error) {
	b, err := readRegularBytes(path, check)
	if err != nil {
		return nil, err
	}
	if off := invalidUTF8(b); off >= 0 {
		return nil, fmt.Errorf("%w (first invalid byte at offset %d)", ErrNotText, off)
	}
	return b, nil
}

// ReadBytes reads a file whole with the checks of ReadFile except the
// UTF-8 one: the supporting files of a skill folder may be binary.
func ReadBytes(path string) ([]byte, error) { return readBytes(path, nil) }

func readBytes(path string, check openedCheck) ([]byte, error) {
	if err := statRegular(path); err != nil {
		return nil, err
	}
	return readRegularBytes(path, check)
}

// readRegularBytes is readRegular without the UTF-8 check.
func readRegularBytes(path string, check openedCheck) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, unwrapPath(err)
	}
	if err := checkRegular(fi); err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(path, f); err != nil {
			return nil, err
		}
	}
	if fi.Size() > maxFileBytes {
		return nil, &tooLargeError{size: fi.Size()}
	}
	// The file may grow while it is read: read one byte past the cap to
	// notice.
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, unwrapPath(err)
	}
	if len(b) > maxFileBytes {
		return nil, &tooLargeError{size: int64(len(b))}
	}
	return b, nil
}

// invalidUTF8 returns the offset of the first byte that is not part of a
// valid UTF-8 sequence, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// unwrapPath drops the operation and path from an *fs.PathError, whose
// text would repeat the path the caller already names.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
