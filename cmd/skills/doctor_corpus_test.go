package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
)

// skills doctor is a deployment gate that passes unmodified public
// skills (issue 29, D69): on the shared public corpus served from a root
// it exits 0, with every reference file loaded (capitals and .txt files
// included) and the frontmatter it is lenient about as warnings.
func TestDoctorPassesThePublicCorpus(t *testing.T) {
	corpus := catalogtest.PublicCorpus(t)
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfgPath, "roots: ["+corpus+"]\n")
	code, out, errOut := runCmd(t, context.Background(), "doctor", "--config", cfgPath)
	if code != 0 {
		var skipped []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "skipped") {
				skipped = append(skipped, line)
			}
		}
		t.Fatalf("doctor on the public corpus: exit %d, want 0; skipped:\n%s\n%s", code, strings.Join(skipped, "\n"), errOut)
	}
	for _, want := range []string{
		"loaded   skill  hashicorp/terraform-test/references/CI_CD.md",
		"loaded   skill  scientific/geomaster/README.md",
		"loaded   skill  anthropic/claude-api/LICENSE.txt",
		"warning  skill  -",
		"description is 1068 characters; at most 1024",
		"No problems.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q", want)
		}
	}
}
