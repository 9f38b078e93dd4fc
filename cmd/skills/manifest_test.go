package main

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/buildinfo"
)

// iii.worker.yaml and `skills --manifest` describe one worker: the same
// name and description, the binary named like the worker (the release
// archives' entry, and what scripts.start runs), and a scripts.start that
// iii compose can run (crates/iii-compose/src/manifest.rs reads only
// scripts.start, a string). TestScriptsStartBuildsAndServes runs it.
func TestWorkerManifestMatchesTheBinary(t *testing.T) {
	raw, err := os.ReadFile("../../iii.worker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name        string
		Description string
		Bin         string
		Scripts     struct{ Start string }
	}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatalf("iii.worker.yaml: %v", err)
	}
	bm := buildinfo.NewManifest()
	if m.Name != bm.Name || m.Bin != bm.Name {
		t.Errorf("iii.worker.yaml name %q, bin %q; the binary's --manifest name is %q", m.Name, m.Bin, bm.Name)
	}
	if m.Description != bm.Description {
		t.Errorf("iii.worker.yaml description %q differs from --manifest's %q", m.Description, bm.Description)
	}
	if !strings.HasSuffix(m.Scripts.Start, "exec ./bin/"+m.Bin) || !strings.Contains(m.Scripts.Start, "make --no-print-directory build") {
		t.Errorf("scripts.start = %q, want it to build with make build and exec ./bin/%s", m.Scripts.Start, m.Bin)
	}
}
