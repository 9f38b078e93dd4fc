//go:build unix

package proctest

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Ended reports a running process as running when its time is up, and
// returns once the process is killed, whether or not it has been reaped.
func TestEnded(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	err := Ended(pid, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "is still running 50ms later") {
		t.Fatalf("a sleeping process: %v, want it reported still running", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := Ended(pid, 5*time.Second); err != nil { // a zombie: killed, not yet reaped
		t.Fatalf("a killed process: %v", err)
	}
	_ = cmd.Wait()
	if err := Ended(pid, 5*time.Second); err != nil { // reaped: the pid is gone
		t.Fatalf("a reaped process: %v", err)
	}
}
