// Package filewait lets tests wait for a file another process or goroutine
// writes to hold what they expect, woken by the file system's events
// (fsnotify) rather than by polling.
package filewait

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Until waits at most within for the file at path to exist with content
// that ok accepts. It reads the file once at the start and again at every
// event in its folder, so a file replaced by a rename is seen too.
func Until(path string, within time.Duration, ok func([]byte) bool) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		return err
	}
	timeout := time.After(within)
	for {
		b, err := os.ReadFile(path)
		if err == nil && ok(b) {
			return nil
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			return fmt.Errorf("watch %s: %w", path, err)
		case <-timeout:
			if err != nil {
				return fmt.Errorf("%s: %w, %s later", path, err, within)
			}
			return fmt.Errorf("%s does not hold what was expected %s later: %.300q", path, within, b)
		}
	}
}
