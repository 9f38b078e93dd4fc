package main

import (
	"os"
	"os/signal"
	"syscall"
)

// catchBrokenPipe makes a write to a standard output that the MCP client
// no longer reads fail with EPIPE instead of ending the process. Without
// it the Go runtime ends a program by SIGPIPE on such a write to fd 1, so
// a client that went away while a list_changed notification was being
// written killed skills mcp before it closed its in-process engine and
// worker. With it the write fails, the session ends as when the client's
// input ends, and the process exits 0 (docs/mcp.md). The signal is caught,
// not ignored: an ignored SIGPIPE would be inherited by the commands that
// SKILL.md tools run, a caught one is reset to its default in them.
func catchBrokenPipe() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
