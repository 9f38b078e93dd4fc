//go:build unix && !linux

package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// newGroup makes the command the leader of a process group of its own, so
// that everything it starts can be signalled at once.
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup asks the command's whole process group to stop.
func terminateGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }

// killGroup ends the command's whole process group.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
