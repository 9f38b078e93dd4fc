package worker

import (
	"bytes"
	"runtime"
	"strings"
	"time"
)

// workerParts name, in a goroutine's stack, the worker and the parts it
// starts.
var workerParts = []string{"internal/worker.", "internal/fsource.(*Watch)", "internal/toolset.(*Set)",
	"internal/catalog.(*Catalog)", "internal/iii.(*Client)", "internal/iii.(*conn)", "internal/tools.(*Runner)", "internal/usage.(*Flusher)"}

// goroutinesGone waits until no goroutine whose stack names one of
// owners is running, and returns the stacks of those still running at
// the deadline. A goroutine that has signalled its owner (a closed done
// channel) may still be returning when Close does, so the check is made
// again until the deadline, as goleak does.
func goroutinesGone(owners ...string) string {
	deadline := time.Now().Add(waitTimeout)
	for {
		left := goroutinesOf(owners)
		if left == "" || time.Now().After(deadline) {
			return left
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// goroutinesOf are the stacks of the running goroutines, other than the
// test's own, whose stack names one of owners.
func goroutinesOf(owners []string) string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var left []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		for _, owner := range owners {
			if strings.Contains(s, owner) && !strings.Contains(s, "goroutinesOf") && !strings.Contains(s, "testing.tRunner") {
				left = append(left, s)
				break
			}
		}
	}
	return strings.Join(left, "\n\n")
}
