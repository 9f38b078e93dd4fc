package fsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The limits of one skill's files under the MCP Skills extension
// (SEP-2640): a host must accept a skill up to these, and a server should
// not serve one past them.
const (
	MaxFolderFiles = 512
	MaxFolderBytes = 16 << 20
)

// maxFolderEntries bounds what a folder listing reads, directories and
// skipped entries included, so a folder of empty directories costs no
// more than one of files.
const maxFolderEntries = 8 * MaxFolderFiles

// ErrFolderTooLarge is a skill folder past the extension's limits.
var ErrFolderTooLarge = errors.New("the skill folder is past the limits of one skill")

// FolderFile is one file of an Agent Skills folder.
type FolderFile struct {
	Rel   string // path below the folder, '/'-separated, e.g. "references/forms.md"
	Path  string // absolute path to read
	Size  int64
	Stamp Stamp
}

// FolderFiles lists every file of the skill folder dir (the folder of a
// SKILL.md under a root), sorted by Rel: SKILL.md, its references,
// scripts and assets, and the files of skills nested in it. What a walk of
// the overlay skips is skipped here too: names starting with "." (.git,
// .DS_Store), anything that is not a regular file, directories more than
// MaxDepth levels down, and symbolic links whose target lies outside the
// roots and allow_paths (D24); a link to a directory is not followed, so
// no loop can form. The files a root's listing does not serve (D69: over
// the body limit, a path the file id rule refuses, a collision) are left
// out too. A folder past MaxFolderFiles files, MaxFolderBytes
// bytes or 4,096 entries in all is an ErrFolderTooLarge that says which,
// and a cancelled ctx is an error too.
func (s *Source) FolderFiles(ctx context.Context, dir string) ([]FolderFile, error) {
	l := folderLister{s: s, ctx: ctx, root: dir}
	if err := l.list("", 0); err != nil {
		return nil, err
	}
	slices.SortFunc(l.files, func(a, b FolderFile) int { return strings.Compare(a.Rel, b.Rel) })
	return s.servedOnly(dir, l.files), nil
}

type folderLister struct {
	s       *Source
	ctx     context.Context
	root    string
	files   []FolderFile
	bytes   int64
	entries int
}

func (l *folderLister) list(rel string, depth int) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if depth > MaxDepth {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(l.root, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("read the skill folder: %w", unwrapPath(err))
	}
	for _, e := range entries {
		if l.entries++; l.entries > maxFolderEntries {
			return fmt.Errorf("%w: it holds more than %d entries", ErrFolderTooLarge, maxFolderEntries)
		}
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		child := path.Join(rel, e.Name())
		full := filepath.Join(l.root, filepath.FromSlash(child))
		switch t := e.Type(); {
		case t.IsDir():
			if err := l.list(child, depth+1); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := e.Info()
			if err != nil {
				continue // gone since the directory was read
			}
			if err := l.add(child, full, fi); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			fi, err := os.Stat(full)
			if err != nil || !fi.Mode().IsRegular() || !l.s.Contained(full) {
				continue
			}
			if err := l.add(child, full, fi); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *folderLister) add(rel, full string, fi fs.FileInfo) error {
	l.files = append(l.files, FolderFile{Rel: rel, Path: full, Size: fi.Size(), Stamp: StampOf(fi)})
	l.bytes += fi.Size()
	switch {
	case len(l.files) > MaxFolderFiles:
		return fmt.Errorf("%w: it has more than %d files, the most one skill may have", ErrFolderTooLarge, MaxFolderFiles)
	case l.bytes > MaxFolderBytes:
		return fmt.Errorf("%w: it holds more than %d bytes, the most one skill may hold", ErrFolderTooLarge, MaxFolderBytes)
	}
	return nil
}
