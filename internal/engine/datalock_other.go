//go:build !unix

package engine

import "os"

// tryLock does not lock where flock is missing (Windows): the data
// directory is then unguarded, as before D66.
func tryLock(*os.File) (bool, error) { return true, nil }
