//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package proctest

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Ended waits at most within for process pid to end: to exit, or to be a
// zombie awaiting its reaper. A kqueue reports the process's exit; a pid
// already gone has ended.
func Ended(pid int, within time.Duration) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return fmt.Errorf("watch process %d: %w", pid, err)
	}
	defer unix.Close(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	deadline := time.Now().Add(within)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return stillRunning(pid, within)
		}
		ts := unix.NsecToTimespec(left.Nanoseconds())
		out := make([]unix.Kevent_t, 1)
		n, err := unix.Kevent(kq, []unix.Kevent_t{ev}, out, &ts)
		switch {
		case errors.Is(err, unix.ESRCH):
			return nil
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return fmt.Errorf("watch process %d: %w", pid, err)
		case n > 0:
			return nil
		}
	}
}
