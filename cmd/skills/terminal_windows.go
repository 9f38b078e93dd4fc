package main

import "golang.org/x/sys/windows"

// isTerminalFD reports whether fd is a console: NUL is a character device
// too, but has no console mode.
func isTerminalFD(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}
