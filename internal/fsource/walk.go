package fsource

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// MaxDepth is how many directories below a pattern's root a walk goes
// (docs/decisions.md D25).
const MaxDepth = 32

// readDirBatch is how many entries a directory read takes at a time, so
// that a huge directory can be cut short by max_files or cancellation.
const readDirBatch = 256

// errNotWalked is returned to doublestar for a directory the walk refuses;
// the reason is recorded as a Skip. doublestar ignores I/O errors, so the
// directory simply contributes nothing.
var errNotWalked = errors.New("not walked")

// errCapped stops a walk that reached max_files.
var errCapped = errors.New("max_files reached")

// walk expands one pattern. Why our own file system under doublestar:
// doublestar.FilepathGlob walks os.DirFS, which has no loop detection (a
// directory link to an ancestor is followed until the kernel's path limits
// stop it, and two such links make the walk exponential), no bound on
// depth or entries, no cancellation, opens directories in blocking mode
// and follows symbolic links anywhere on the host. doublestar only ever
// calls ReadDir and Stat on the fs.FS it is given, so walk implements
// those with the checks of docs/decisions.md D24 and D25 and leaves the matching,
// and its exact semantics, to doublestar:
//
//   - a directory whose real path leaves the root (and every allow_paths
//     directory) is not read;
//   - a directory that is the same directory (device and inode) as one of
//     its ancestors is a loop and is not read;
//   - a directory more than MaxDepth levels below the root is not read;
//   - after maxFiles directory entries, or once ctx ends, every call
//     fails, so doublestar unwinds at once.
//
// Each refusal is recorded once as a Skip in the scan.
type walk struct {
	sc       *scan
	pattern  string // as configured, for the Skip of a stopped walk
	root     string // OS path of the pattern's root (its static prefix)
	realRoot string // root with symbolic links resolved; "" if it cannot be
	maxFiles int
	entries  int   // directory entries read so far
	stop     error // why the walk stopped early: ctx.Err() or errCapped
	verdicts map[string]error
	keys     map[string]keyResult
}

type keyResult struct {
	key fileKey
	err error
}

func newWalk(sc *scan, pattern string, maxFiles int) *walk {
	return &walk{
		sc:       sc,
		pattern:  pattern,
		maxFiles: maxFiles,
		verdicts: make(map[string]error),
		keys:     make(map[string]keyResult),
	}
}

// glob expands one absolute, cleaned pattern into matching paths (files
// and directories), as doublestar.FilepathGlob does but over the walk.
// Order is not defined; I/O errors are ignored (an unreadable directory
// contributes nothing), as by the reference.
func (w *walk) glob(pattern string) ([]string, error) {
	if pattern == "" {
		return nil, nil
	}
	pattern = filepath.ToSlash(filepath.Clean(pattern))
	base, rest := doublestar.SplitPattern(pattern)
	w.root = filepath.FromSlash(base)
	if real, err := filepath.EvalSymlinks(w.root); err == nil {
		w.realRoot = real
	}
	if rest == "" || rest == "." || rest == ".." {
		// Nothing to walk: the pattern is a path (as in FilepathGlob).
		if !doublestar.ValidatePathPattern(pattern) {
			return nil, doublestar.ErrBadPattern
		}
		if filepath.Separator != '\\' {
			pattern = unescapeMeta(pattern)
		}
		if _, err := os.Lstat(pattern); err != nil {
			return nil, nil
		}
		return []string{filepath.FromSlash(pattern)}, nil
	}
	matches, err := doublestar.Glob(w, rest)
	if err != nil {
		return nil, err
	}
	for i, m := range matches {
		matches[i] = filepath.FromSlash(path.Join(base, m))
	}
	return matches, nil
}

// unescapeMeta removes doublestar's escapes of its meta characters.
var unescapeMeta = strings.NewReplacer(`\*`, "*", `\?`, "?", `\[`, "[", `\]`, "]", `\{`, "{", `\}`, "}").Replace

// full is the OS path of a walk-relative name.
func (w *walk) full(name string) string {
	return filepath.Join(w.root, filepath.FromSlash(name))
}

// live reports why the walk must stop, if it must.
func (w *walk) live() error {
	if w.stop != nil {
		return w.stop
	}
	if err := w.sc.ctx.Err(); err != nil {
		w.stop = err
		return err
	}
	return nil
}

// Open implements fs.FS; doublestar does not call it, but if it did the
// same checks as Stat apply and the file is opened without blocking.
func (w *walk) Open(name string) (fs.File, error) {
	if err := w.enterParent("open", name); err != nil {
		return nil, err
	}
	return openNoBlock(w.full(name))
}

// Stat implements fs.StatFS: os.Stat, once the directory holding name
// may be walked.
func (w *walk) Stat(name string) (fs.FileInfo, error) {
	if err := w.enterParent("stat", name); err != nil {
		return nil, err
	}
	return os.Stat(w.full(name))
}

func (w *walk) enterParent(op, name string) error {
	if err := w.live(); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return nil
	}
	if err := w.enter(parent(name)); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

// ReadDir implements fs.ReadDirFS: the entries of a directory the walk may
// enter, sorted by name, read in batches so that max_files and
// cancellation cut a huge directory short.
func (w *walk) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := w.live(); err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	if err := w.enter(name); err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	f, err := openNoBlock(w.full(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	var entries []fs.DirEntry
	for {
		if err := w.live(); err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
		}
		batch, err := f.ReadDir(readDirBatch)
		w.entries += len(batch)
		if w.entries > w.maxFiles {
			w.stop = errCapped
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: errCapped}
		}
		entries = append(entries, batch...)
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// enter reports whether the walk may read the directory name (never "."
// refused: the root is what the operator configured). Verdicts are
// cached; a parent is checked before its children.
func (w *walk) enter(name string) error {
	if name == "." {
		return nil
	}
	if err, done := w.verdicts[name]; done {
		return err
	}
	err := w.check(name)
	w.verdicts[name] = err
	return err
}

func (w *walk) check(name string) error {
	if err := w.enter(parent(name)); err != nil {
		return err
	}
	full := w.full(name)
	if depth := strings.Count(name, "/") + 1; depth > MaxDepth {
		w.sc.skip(full, fmt.Sprintf("directory %s is %d directories below %s, deeper than the limit of %d; it is not walked", full, depth, w.root, MaxDepth))
		return errNotWalked
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return unwrapPath(err) // gone or unreadable: contributes nothing, as before
	}
	if !w.sc.allowed(real, w.realRoot) {
		w.sc.skip(full, escapeReason(full, real, w.root))
		return errNotWalked
	}
	key, err := w.key(name)
	if err != nil {
		return err
	}
	for anc := parent(name); ; anc = parent(anc) {
		if ak, err := w.key(anc); err == nil && ak == key {
			w.sc.skip(full, fmt.Sprintf("directory %s is a symbolic link loop: it is %s again, which contains it; it is not walked again", full, w.full(anc)))
			return errNotWalked
		}
		if anc == "." {
			return nil
		}
	}
}

// key identifies the directory name (symbolic links followed).
func (w *walk) key(name string) (fileKey, error) {
	if k, ok := w.keys[name]; ok {
		return k.key, k.err
	}
	full := w.full(name)
	fi, err := os.Stat(full)
	var k fileKey
	if err == nil {
		k, err = fileKeyOf(full, fi)
	}
	w.keys[name] = keyResult{key: k, err: err}
	return k, err
}

// parent is the walk-relative name of the directory holding name; "." for
// a name at the root.
func parent(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return "."
}
