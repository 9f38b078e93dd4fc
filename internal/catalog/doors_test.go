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
// hold one. notYet are the surfaces still to move behind the view; the
// test fails when one of them no longer needs the exception, so the list
// only shrinks.
func TestSurfacesReadContentOnlyThroughTheView(t *testing.T) {
	const module = "github.com/iii-hq/skills-go/internal/"
	surfaces := []string{"registry", "search", "mcpskills", "diagnostics", "roots", "toolset"}
	notYet := []string{"mcpskills"}
	args := []string{"list", "-f", `{{.ImportPath}} {{join .Imports " "}}`}
	for _, s := range surfaces {
		args = append(args, module+s)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		direct := slices.Contains(fields[1:], module+"fsource")
		switch {
		case direct && !slices.Contains(notYet, pkg):
			t.Errorf("%s imports internal/fsource; surfaces read content through the view (internal/catalog)", pkg)
		case !direct && slices.Contains(notYet, pkg):
			t.Errorf("%s no longer imports internal/fsource: take it off notYet", pkg)
		}
	}
}
