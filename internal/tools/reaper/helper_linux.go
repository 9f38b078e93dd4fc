package reaper

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapTimeout bounds the helper's last sweep: a process that SIGKILL
// cannot end at once (stuck in the kernel) is left to end by itself, and
// the call still returns.
const reapTimeout = 5 * time.Second

// resweep is how soon the last sweep looks again for processes when no
// SIGCHLD came: a process reparented to the helper between a look and a
// kill is found at the next look.
const resweep = 10 * time.Millisecond

// The helper mode runs before main, in every binary that links this
// package (the worker, the CLI, test binaries alike), so that Start can
// always run it as /proc/self/exe; it never returns to main. It ends
// with syscall.Exit rather than os.Exit: it has nothing to flush, and a
// build with the race detector would otherwise wait a second at exit.
func init() {
	if len(os.Args) >= 2 && os.Args[0] == Arg0 {
		syscall.Exit(runHelper(os.Args[1], os.Args[1:]))
	}
}

// runHelper is the helper of one command: a child subreaper (so that every
// orphan among the command's descendants becomes its child, wherever
// its process group or session), it runs the command in a process group
// of its own with stdin empty and stdout and stderr on outputFD, follows the
// runner's control messages on stdin, and once the command has ended
// kills and reaps every process left below it. It reports how the
// command ended on reportFD (Wait reads it).
func runHelper(path string, argv []string) int {
	syscall.CloseOnExec(outputFD) // the command gets the output as stdout and stderr only
	syscall.CloseOnExec(reportFD)
	report := os.NewFile(reportFD, "report")
	say := func(format string, a ...any) int {
		_, _ = fmt.Fprintf(report, format+"\n", a...)
		return 0
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return say("%scannot become a child subreaper: %v", reportError, err)
	}
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	stop := make(chan os.Signal, 1) // a signal to the helper itself: pass it on as SIGTERM
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM} {
		if !signal.Ignored(sig) { // one the worker ignores, the command ignores too, as before
			signal.Notify(stop, sig)
		}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return say("%scannot open %s: %v", reportError, os.DevNull, err)
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{null.Fd(), outputFD, outputFD},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	null.Close()            //nolint:errcheck // the command holds its own copy
	syscall.Close(outputFD) //nolint:errcheck // only the command and its children hold the output now
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return say("%s%d", reportStart, uint32(errno))
		}
		return say("%s%v", reportError, err)
	}
	control := make(chan byte, 1)
	go readControl(control)

	r := reaper{cmd: pid, chld: chld}
	for r.reap(); !r.ended; r.reap() {
		select {
		case <-chld:
		case <-stop:
			r.signal(syscall.SIGTERM)
		case msg := <-control:
			switch msg {
			case msgTerminate:
				r.signal(syscall.SIGTERM)
			case msgKill:
				r.signal(syscall.SIGKILL)
			}
		}
	}
	r.sweep()
	return say("%s%d", reportExit, uint32(r.status))
}

// readControl passes the runner's messages on; the end of the pipe (the
// runner closed it, or its process ended) is msgKill. It ends with the
// helper's process, which exits without waiting for it.
func readControl(control chan<- byte) {
	buf := make([]byte, 1)
	for {
		n, err := os.Stdin.Read(buf)
		if n == 1 {
			control <- buf[0]
		}
		if err != nil {
			control <- msgKill
			return
		}
	}
}

// reaper follows the command (cmd, the leader of its process group) and
// the helper's other children: the orphans of the command's descendants.
type reaper struct {
	cmd    int
	chld   <-chan os.Signal
	ended  bool               // the command has been reaped
	status syscall.WaitStatus // how it ended
}

// reap collects every child that has ended, without waiting; none
// reports that the helper has no child left at all, and so no
// descendant: every descendant's line of parents passes through one.
func (r *reaper) reap() (none bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ECHILD):
			return true
		case err != nil || pid <= 0:
			return false
		}
		if pid == r.cmd {
			r.ended, r.status = true, ws
		}
	}
}

// signal sends sig to the command's process group, while the command is
// not reaped, and to every child of the helper outside that group. Only
// pids the helper holds are signalled: its children's, which cannot be
// reused before the helper reaps them, and the command's group's, which
// cannot while the command is unreaped; so no unrelated process is ever
// hit. A descendant further down, outside the group, whose parent lives,
// is reached once its parent is killed: it becomes the helper's child,
// and the sweep finds it.
func (r *reaper) signal(sig syscall.Signal) {
	if !r.ended {
		_ = syscall.Kill(-r.cmd, sig)
	}
	for _, c := range children() {
		if r.ended || c.pgrp != r.cmd {
			_ = syscall.Kill(c.pid, sig)
		}
	}
}

// sweep kills and reaps everything left below the helper, layer by layer
// (a killed child's children become the helper's), until it has no child
// or reapTimeout has passed.
func (r *reaper) sweep() {
	deadline := time.NewTimer(reapTimeout)
	defer deadline.Stop()
	again := time.NewTicker(resweep)
	defer again.Stop()
	for !r.reap() {
		r.signal(syscall.SIGKILL)
		select {
		case <-r.chld:
		case <-again.C:
		case <-deadline.C:
			return
		}
	}
}

// child is a child process of the helper.
type child struct{ pid, pgrp int }

// children lists the helper's children from /proc (every pid's stat:
// "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses,
// so the fields are read after its last ")").
func children() []child {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []child
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // ended meanwhile
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 {
			continue
		}
		if ppid, _ := strconv.Atoi(string(f[1])); ppid == self {
			pgrp, _ := strconv.Atoi(string(f[2]))
			out = append(out, child{pid: pid, pgrp: pgrp})
		}
	}
	return out
}
