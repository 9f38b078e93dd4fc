package reaper

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// Arg0 is the argv[0] under which this binary runs as the helper of one
// command. No user types it: it is not a subcommand, and a binary started
// under another name never takes the helper's path.
const Arg0 = "skills-tool-reaper"

// helperPath is the running binary, whatever has become of its file
// since it started (an upgrade in place, a rebuild): the helper is always
// the code that asked for it.
const helperPath = "/proc/self/exe"

// The helper's files (helper_linux.go): the control pipe on stdin,
// /dev/null on stdout, the worker's stderr (where a crash of the helper
// would show), then these two.
const (
	outputFD = 3 // the command's stdout and stderr
	reportFD = 4 // the report: how the command ended
)

// Control messages to the helper, one byte each. The end of the pipe
// (the worker ended, however) is msgKill.
const (
	msgTerminate = 'T' // SIGTERM to the command and what it started
	msgKill      = 'K' // SIGKILL to them
)

// The helper's report is one line: "exit <wait status>"; "start <errno>"
// when the program could not be started; "error <text>" when the helper
// itself could not do its work.
const (
	reportExit  = "exit "
	reportStart = "start "
	reportError = "error "
)

// Process is a command running under its helper.
type Process struct {
	cmd     *exec.Cmd
	control *os.File // to the helper
	report  *os.File // from the helper
}

// Result is how a command ended.
type Result struct {
	Status   syscall.WaitStatus // when Err and StartErr are nil
	StartErr error              // the program could not be started (an errno from exec)
	Err      error              // the helper could not run or follow the command
}

// Start starts the helper for path (argv[0] of the command) with args,
// in dir, with env, stdin empty, and stdout and stderr on out. A program
// that cannot be started is found by the helper and reported by Wait
// (Result.StartErr).
func Start(path string, args []string, dir string, env []string, out *os.File) (*Process, error) {
	controlR, controlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	reportR, reportW, err := os.Pipe()
	if err != nil {
		controlR.Close() //nolint:errcheck // unused
		controlW.Close() //nolint:errcheck // unused
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:       helperPath,
		Args:       append([]string{Arg0, path}, args...),
		Dir:        dir,
		Env:        env,
		Stdin:      controlR,
		Stderr:     os.Stderr,
		ExtraFiles: []*os.File{out, reportW}, // outputFD, reportFD
		// Out of the worker's process group, so that a signal to it (a
		// Ctrl-C in its terminal) reaches the command only through the
		// worker and the helper, as it did when the command was in a
		// group of its own.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	controlR.Close() //nolint:errcheck // the helper holds its own copy
	reportW.Close()  //nolint:errcheck // likewise
	if err != nil {
		controlW.Close() //nolint:errcheck // no helper
		reportR.Close()  //nolint:errcheck // no helper
		return nil, err
	}
	return &Process{cmd: cmd, control: controlW, report: reportR}, nil
}

// Wait returns how the command ended, once it has and once every process
// it started has been killed and reaped. It is called once.
func (p *Process) Wait() Result {
	report, _ := io.ReadAll(p.report) // until the helper exits
	werr := p.cmd.Wait()
	p.report.Close()  //nolint:errcheck // read to the end
	p.control.Close() //nolint:errcheck // the helper is gone
	return readReport(report, werr)
}

// Terminate asks the command and what it started to stop (SIGTERM). It
// may race the helper's exit: the error (a broken pipe, a closed file)
// then changes nothing.
func (p *Process) Terminate() { _, _ = p.control.Write([]byte{msgTerminate}) }

// Kill ends the command and what it started (SIGKILL).
func (p *Process) Kill() { _, _ = p.control.Write([]byte{msgKill}) }

// readReport turns the helper's report into a Result; with no report,
// the helper's own end says what happened.
func readReport(report []byte, werr error) Result {
	line := strings.TrimSuffix(string(report), "\n")
	if n, ok := cutNumber(line, reportExit); ok {
		return Result{Status: syscall.WaitStatus(n)}
	}
	if n, ok := cutNumber(line, reportStart); ok {
		return Result{StartErr: syscall.Errno(n)}
	}
	if text, ok := strings.CutPrefix(line, reportError); ok {
		return Result{Err: errors.New("the tool helper failed: " + text)}
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return Result{Status: ws} // the helper itself was killed
		}
	}
	return Result{Err: fmt.Errorf("the tool helper ended (%v) without saying how the command did", werr)}
}

func cutNumber(line, prefix string) (uint32, bool) {
	rest, ok := strings.CutPrefix(line, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 32)
	return uint32(n), err == nil
}
