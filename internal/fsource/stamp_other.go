//go:build !linux && !darwin

package fsource

import "io/fs"

// changeKey is empty where the status-change time is not read (Windows):
// size, modification time and mode decide alone.
type changeKey struct{}

func changeOf(fs.FileInfo) changeKey { return changeKey{} }
