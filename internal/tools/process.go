package tools

import "syscall"

// process is a command started by startProcess, the platform's way of
// making everything the command starts end with the call: on Linux a
// helper that is a child subreaper (proc_linux.go, reaper_linux.go),
// elsewhere a process group of its own (proc_group.go; docs/tools.md,
// "Nothing outlives the call").
type process interface {
	// wait returns how the command ended, once it has and once what it
	// left running has been killed. It is called once.
	wait() ended
	// terminate asks the command and what it started to stop (SIGTERM).
	terminate()
	// kill ends them (SIGKILL).
	kill()
}

// ended is how a command ended.
type ended struct {
	status   syscall.WaitStatus // when err and startErr are nil
	err      error              // the command could not be waited for
	startErr error              // the program could not be started
}
