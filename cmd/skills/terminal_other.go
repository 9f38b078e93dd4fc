//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package main

// isTerminalFD reports false where terminals cannot be told apart: approve
// then needs --yes.
func isTerminalFD(uintptr) bool { return false }
