//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process (engine, worker and caller, which
// all run in it) has used so far; under load it moves less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
