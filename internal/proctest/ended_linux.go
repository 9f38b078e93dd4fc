package proctest

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Ended waits at most within for process pid to end: to exit, or to be a
// zombie awaiting its reaper. A pidfd of the process turns readable when
// it does; a pid already reaped has ended.
func Ended(pid int, within time.Duration) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("watch process %d: %w", pid, err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(within)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return stillRunning(pid, within)
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return fmt.Errorf("watch process %d: %w", pid, err)
		case n > 0:
			return nil
		}
	}
}
