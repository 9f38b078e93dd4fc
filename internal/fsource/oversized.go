package fsource

import (
	"errors"
	"fmt"

	"github.com/iii-hq/skills-go/internal/skillmd"
)

// oversized is why a file of a root is not served for its size: its body
// (the file after any frontmatter) is over MaxBodyBytes, so every read of
// it would fail; "" when it fits (docs/decisions.md D69). A root's
// listing, FolderFiles and so every surface leave such a file out, and
// the scan's Skip says why. A file no larger than the limit is judged by
// its size alone; a larger one is read once to measure its body, up to
// the 16 MiB past which nothing is read. A binary file (assets/logo.png)
// has no frontmatter: over the limit, it is skipped like any other.
func oversized(path string, size int64, check openedCheck) string {
	if size <= MaxBodyBytes {
		return ""
	}
	b, err := readBytes(path, check) // a binary file's body is all of it
	if tl, ok := errors.AsType[*tooLargeError](err); ok {
		return tooLargeReason(tl.size)
	}
	if err != nil {
		return "" // unreadable for another reason: a read says which
	}
	if _, rest, _ := skillmd.SplitFrontmatter(b); len(rest) > MaxBodyBytes {
		return tooLargeReason(int64(len(rest)))
	}
	return ""
}

func tooLargeReason(n int64) string {
	return fmt.Sprintf("too large to serve (%d bytes; max %d, the body limit): not listed, so that no read fails on it; split it or move it out of the skill folder", n, MaxBodyBytes)
}
