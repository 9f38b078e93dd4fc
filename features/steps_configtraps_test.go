package features

import (
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cucumber/godog"
)

// Steps for the config traps (docs/decisions.md D66): a one-off run in
// the scenario's folder, its error output, and an engine that holds a
// data directory while another process tries it.
func (w *world) configTrapSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I run the binary in the scenario's folder with "([^"]*)"$`, func(args string) error {
		return w.runBinaryIn(w.dir, args)
	})
	sc.Step(`^the binary's error output (contains|does not contain) "(.*)"$`, func(op, want string) error {
		return compareText("error output", op, w.procs.stderr, unescape(w.expand(want)))
	})
	sc.Step(`^a local engine keeps its state in "([^"]*)"$`, w.engineHoldingData)
	sc.Step(`^that engine is killed with SIGKILL$`, func() error {
		if len(w.procs.others) == 0 {
			return fmt.Errorf("no engine was started")
		}
		// stop waits until the kernel has reaped it, and so released its
		// lock.
		_, err := w.procs.others[len(w.procs.others)-1].stop(syscall.SIGKILL, stopTimeout)
		return err
	})
}

// engineHoldingData starts `skills engine --data dir/data` (dir relative to
// the scenario's folder) and waits until it listens, so it holds the
// directory's lock; {{holder_pid}} is its pid.
func (w *world) engineHoldingData(data string) error {
	bin, err := w.run.binary()
	if err != nil {
		return err
	}
	p, err := startProcess(bin, "", []string{"engine", "--port", "0", "--data", filepath.Join(w.dir, data)}, workerEnv(nil))
	if err != nil {
		return err
	}
	w.procs.others = append(w.procs.others, p)
	if err := p.waitOutput("III_URL", 10*time.Second); err != nil {
		return err
	}
	w.vars["holder_pid"] = fmt.Sprint(p.cmd.Process.Pid)
	return nil
}
