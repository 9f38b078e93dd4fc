package features

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cucumber/godog"
)

// Steps that set up what the worker reads: files under the scenario
// directory (fs-skills/, fs-prompts/ or anywhere a config points), the
// config itself, and state rows written behind the worker's back.
func (w *world) fsSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the file "([^"]*)" contains:$`, func(path string, doc *godog.DocString) error {
		return w.writeFile(path, w.expand(doc.Content))
	})
	sc.Step(`^the file "([^"]*)" is removed$`, func(path string) error {
		return os.Remove(filepath.Join(w.dir, filepath.FromSlash(path)))
	})
	sc.Step(`^the worker config has:$`, func(doc *godog.DocString) error {
		if w.workerStarted {
			return fmt.Errorf("the worker already started; set its config before the first call")
		}
		return w.mergeConfig(doc.Content)
	})
	sc.Step(`^the (skills|prompts) scope holds the row "([^"]*)":$`, func(which, key string, doc *godog.DocString) error {
		raw, err := w.payload(doc.Content)
		if err != nil {
			return err
		}
		w.engineUsed = true
		_, err = w.engineCall(context.Background(), "state::set", map[string]any{"scope": w.scope(which), "key": key, "value": raw})
		return err
	})
}

// writeFile writes content to path, relative to the scenario directory.
func (w *world) writeFile(path, content string) error {
	full := filepath.Join(w.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, []byte(content), 0o644)
}
