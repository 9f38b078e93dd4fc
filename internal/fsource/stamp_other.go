//go:build !linux && !darwin

package fsource

import "io/fs"

// changeKey is empty where the status-change time is not read (Windows):
// size, modification time and mode decide alone.
type changeKey struct{}

func changeOf(fs.FileInfo) changeKey { return changeKey{} }

// SameInode is false where a file's identity is not read: no change is
// taken for a write in place (D81).
func (s Stamp) SameInode(Stamp) bool { return false }
