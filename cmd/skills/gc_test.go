package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// The worker collects at GOGC 50 (D74) unless $GOGC says otherwise, in
// which case the runtime's own reading of it stands.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "") // restored at the end of the test
	os.Unsetenv("GOGC")
	for _, c := range []struct {
		env  string // "" leaves GOGC unset
		want int
	}{{"", workerGCPercent}, {"200", 100}} {
		debug.SetGCPercent(100) // what the runtime would have read
		if c.env != "" {
			t.Setenv("GOGC", c.env)
		}
		tuneGC()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: the worker collects at %d, want %d", c.env, got, c.want)
		}
	}
}
