//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

// Without process groups (Windows), only the command's own process can be
// signalled; what it started is left to the system.
func newGroup(*exec.Cmd) {}

func terminateGroup(p *os.Process) { _ = p.Kill() }

func killGroup(p *os.Process) { _ = p.Kill() }
