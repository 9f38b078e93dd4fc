package fsource

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// dirsUnderRoots lists the directories under the patterns' roots as the
// scan reaches them, symbolic links to directories inside the root (or an
// allow_paths directory) included, each real directory once (by device
// and inode), at most MaxDepth deep and max_files in all; and the roots
// that do not exist.
func (s *Source) dirsUnderRoots() (dirs, missing []string) {
	sc := s.newScan(context.Background(), KindSkill)
	for _, root := range s.roots() {
		realRoot, err := filepath.EvalSymlinks(root)
		if fi, statErr := os.Stat(root); err != nil || statErr != nil || !fi.IsDir() {
			missing = append(missing, root)
			continue
		}
		seen := map[fileKey]bool{}
		var walk func(dir string, depth int)
		walk = func(dir string, depth int) {
			fi, err := os.Stat(dir)
			if err != nil || depth > MaxDepth || len(dirs) >= s.maxFiles {
				return
			}
			if key, err := fileKeyOf(dir, fi); err == nil {
				if seen[key] {
					return // a loop, or the same directory twice
				}
				seen[key] = true
			}
			dirs = append(dirs, dir)
			entries, err := os.ReadDir(dir)
			if err != nil {
				return
			}
			for _, e := range entries {
				path := filepath.Join(dir, e.Name())
				switch {
				case e.IsDir():
					walk(path, depth+1)
				case e.Type()&fs.ModeSymlink != 0:
					if real, err := filepath.EvalSymlinks(path); err == nil && sc.allowed(real, realRoot) {
						if fi, err := os.Stat(real); err == nil && fi.IsDir() {
							walk(path, depth+1)
						}
					}
				}
			}
		}
		walk(root, 0)
	}
	return dirs, missing
}

// dirStamps are directories with their modification times; a missing
// directory has the zero time.
type dirStamps map[string]time.Time

// stampDirs records the directories under the roots (and the missing
// roots) as they are now.
func (s *Source) stampDirs() dirStamps {
	dirs, missing := s.dirsUnderRoots()
	stamps := make(dirStamps, len(dirs)+len(missing))
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err == nil {
			stamps[dir] = fi.ModTime()
		}
	}
	for _, root := range missing {
		stamps[root] = time.Time{}
	}
	return stamps
}

// current reports whether every stamped directory is as stamped.
func (d dirStamps) current() bool {
	for dir, stamp := range d {
		fi, err := os.Stat(dir)
		switch {
		case err != nil:
			if !stamp.IsZero() {
				return false // removed
			}
		case stamp.IsZero() || !fi.ModTime().Equal(stamp):
			return false // created, or its entries changed
		}
	}
	return true
}

// roots are the directories the patterns walk: each pattern's static
// prefix, made absolute, and the Agent Skills roots.
func (s *Source) roots() []string {
	var out []string
	patterns := append(slices.Clone(s.skillPatterns), s.promptPatterns...)
	for _, root := range s.rootDirs {
		patterns = append(patterns, rootPattern(root))
	}
	for _, p := range patterns {
		base, _ := doublestar.SplitPattern(filepath.ToSlash(s.absPattern(p)))
		root := filepath.Clean(filepath.FromSlash(unescapeMeta(base)))
		if !slices.Contains(out, root) {
			out = append(out, root)
		}
	}
	return out
}

// existingAncestor is the nearest ancestor of path that is a directory.
func existingAncestor(path string) string {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

func depth(rel string) int {
	if rel == "." || rel == "" {
		return 0
	}
	n := 1
	for _, c := range rel {
		if c == filepath.Separator {
			n++
		}
	}
	return n
}
