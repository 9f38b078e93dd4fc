package main

import "golang.org/x/sys/unix"

// isTerminalFD reports whether fd is a terminal: the driver answers for it.
func isTerminalFD(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
