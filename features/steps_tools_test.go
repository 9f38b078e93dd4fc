package features

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/iii-hq/skills-go/internal/proctest"
)

// Steps about typed tools (docs/decisions.md D34–D39): approvals made
// with the real CLI, functions appearing, and the processes a tool left.
func (w *world) toolSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I approve the tools of "([^"]*)"$`, w.approveTools)
	sc.Step(`^the engine lists the function "([^"]*)"$`, w.functionListed)
	sc.Step(`^the process whose pid is in the file "([^"]*)" has ended within (\d+) ms$`, w.processEnded)
}

// approveTools runs `skills tools approve <id> --yes` against the
// scenario's config, as a user would, and requires it to succeed.
func (w *world) approveTools(id string) error {
	cfg, err := w.writeConfig()
	if err != nil {
		return err
	}
	bin, err := w.run.binary()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "tools", "approve", id, "--yes", "--config", cfg)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("skills tools approve %s: %v\n%s", id, err, out.String())
	}
	if !strings.Contains(out.String(), "approved "+id) {
		return fmt.Errorf("skills tools approve %s said:\n%s", id, out.String())
	}
	return nil
}

// functionListed waits until the engine lists id (starting the worker on
// first need, as a call does): the local engine says so directly; an
// external one is asked again at every change it announces.
func (w *world) functionListed(id string) error {
	if err := w.ensureWorker(); err != nil {
		return err
	}
	l, err := w.link()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.listingWait())
	defer cancel()
	if l.srv != nil {
		return l.srv.WaitFunction(ctx, id)
	}
	return l.awaitListing(ctx, id, true)
}

// processEnded checks that the process whose pid a tool wrote to a file
// is gone (or a zombie waiting for its reaper). A killed process ends at
// the kernel's pace, so the check allows it the given time.
func (w *world) processEnded(path string, ms int) error {
	b, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(path)))
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%s holds %q, not a pid", path, b)
	}
	return proctest.Ended(pid, time.Duration(ms)*time.Millisecond)
}
