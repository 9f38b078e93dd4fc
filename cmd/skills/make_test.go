package main

import (
	"os/exec"
	"strings"
	"testing"
)

// make run passes PORT to skills dev as --port, so a second engine (the
// examples tour, another checkout) can run beside the first; without
// PORT it is the iii default.
func TestMakeRunPort(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "--port 49134"},
		{[]string{"run", "PORT=49200"}, "--port 49200"},
	} {
		// -n prints the recipes without running them.
		out, err := exec.Command("make", append([]string{"-n", "-C", "../.."}, tt.args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", strings.Join(tt.args, " "), err, out)
		}
		var dev string
		for line := range strings.Lines(string(out)) {
			if strings.Contains(line, "bin/skills dev ") {
				dev = line
			}
		}
		if !strings.Contains(dev, tt.want) {
			t.Errorf("make %s runs %q, want it to pass %s", strings.Join(tt.args, " "), dev, tt.want)
		}
	}
}
