package features

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/cucumber/godog"
)

// hardeningSteps make the hostile files of @hardening scenarios: links
// that leave their root, loops and named pipes, all inside the scenario
// directory.
func (w *world) hardeningSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the symlink "([^"]*)" points to "([^"]*)"$`, w.symlink)
	sc.Step(`^the named pipe "([^"]*)" exists$`, func(path string) error {
		full, err := w.scenarioPath(path)
		if err != nil {
			return err
		}
		return syscall.Mkfifo(full, 0o644)
	})
}

// symlink makes the link at path (relative to the scenario directory)
// point to target: an absolute path as given, else a path relative to the
// scenario directory, made absolute so the link reads the same from
// anywhere.
func (w *world) symlink(path, target string) error {
	full, err := w.scenarioPath(path)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(w.dir, filepath.FromSlash(target))
	}
	return os.Symlink(target, full)
}

// scenarioPath is path inside the scenario directory, with its parent
// directories made.
func (w *world) scenarioPath(path string) (string, error) {
	full := filepath.Join(w.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return "", fmt.Errorf("make the parent of %s: %w", path, err)
	}
	return full, nil
}
