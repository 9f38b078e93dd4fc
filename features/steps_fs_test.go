package features

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

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
	sc.Step(`^the file "([^"]*)" was last modified an hour ago$`, func(path string) error {
		old := time.Now().Add(-time.Hour)
		return os.Chtimes(filepath.Join(w.dir, filepath.FromSlash(path)), old, old)
	})
	sc.Step(`^the file "([^"]*)" is replaced by a file of the same size and modification time:$`, func(path string, doc *godog.DocString) error {
		return w.replaceFile(path, w.expand(doc.Content))
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

// replaceFile puts content at path as cp -p and rsync do: a new file (a
// new inode) renamed over the old one, given the old one's modification
// time. The content must have the old one's size: only the file's
// identity and status-change time tell the two apart.
func (w *world) replaceFile(path, content string) error {
	full := filepath.Join(w.dir, filepath.FromSlash(path))
	fi, err := os.Stat(full)
	if err != nil {
		return err
	}
	if int64(len(content)) != fi.Size() {
		return fmt.Errorf("the replacement has %d bytes; the file has %d: they must match", len(content), fi.Size())
	}
	tmp := full + ".replacement"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		return err
	}
	return os.Rename(tmp, full)
}
