//go:build !linux

package tools

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// groupProcess is a command in a process group of its own, where there is
// no child subreaper (macOS, the BSDs, Windows): signals reach the whole
// group, and the group is killed when the command ends. A process that
// leaves the group (setsid) escapes; docs/tools.md says so.
type groupProcess struct{ cmd *exec.Cmd }

// startProcess starts path with args in dir, with env, stdin empty and
// stdout and stderr on out.
func startProcess(path string, args []string, dir string, env []string, out *os.File) (process, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = out, out
	newGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &groupProcess{cmd: cmd}, nil
}

func (p *groupProcess) wait() ended {
	err := p.cmd.Wait()
	killGroup(p.cmd.Process) // whatever the command left running in its group
	var exit *exec.ExitError
	switch {
	case err == nil:
		return ended{status: p.cmd.ProcessState.Sys().(syscall.WaitStatus)}
	case errors.As(err, &exit):
		return ended{status: exit.Sys().(syscall.WaitStatus)}
	}
	return ended{err: err}
}

func (p *groupProcess) terminate() { terminateGroup(p.cmd.Process) }

func (p *groupProcess) kill() { killGroup(p.cmd.Process) }
