package main

import (
	"errors"
	"fmt"
	"io"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed
	exitUsage = 2 // bad flags or arguments
)

// usageError is a bad flag or argument: main prints it and exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// usagef formats a usageError.
func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// errReported is a failure the command already wrote to its log: main
// exits 1 without printing it again.
var errReported = errors.New("failure already reported in the log")

// exitCode maps what a command returned to the process exit code, printing
// the error on stderr unless the command already reported it. This is the
// one place that knows the codes.
func exitCode(err error, stderr io.Writer) int {
	var usage usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errReported):
		return exitError
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, usage.msg)
		return exitUsage
	default:
		fmt.Fprintln(stderr, err)
		return exitError
	}
}
