package proctest

import (
	"fmt"
	"time"
)

func stillRunning(pid int, within time.Duration) error {
	return fmt.Errorf("process %d is still running %s later", pid, within)
}
