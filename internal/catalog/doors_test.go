package catalog_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The content view is the one door to content (docs/decisions.md D68):
// the surfaces read files through it and import nothing of the file
// source; only the view and the composition root (internal/worker, cmd)
// hold one.
func TestSurfacesReadContentOnlyThroughTheView(t *testing.T) {
	const module = "github.com/iii-hq/skills-go/internal/"
	surfaces := []string{"registry", "search", "mcpskills", "diagnostics", "roots", "toolset"}
	args := []string{"list", "-f", `{{.ImportPath}} {{join .Imports " "}}`}
	for _, s := range surfaces {
		args = append(args, module+s)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(surfaces) {
		t.Fatalf("go list answered %d packages for %d surfaces:\n%s", len(lines), len(surfaces), out)
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		if slices.Contains(fields[1:], module+"fsource") {
			t.Errorf("%s imports internal/fsource; surfaces read content through the view (internal/catalog)", strings.TrimPrefix(fields[0], module))
		}
	}
}
