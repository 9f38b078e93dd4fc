package diagnostics

import (
	"path/filepath"
	"testing"

	"github.com/iii-hq/skills-go/internal/config"
)

// The roots skills dev adds without a roots key are not warned of: most
// machines lack some of them (D66); the file's own roots are.
func TestFindUnmatchedSkipsTheModesRoots(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Dir = dir
	if got := FindUnmatched(config.Resolve(cfg, config.ModeDev), nil, nil, true); len(got) != 0 {
		t.Errorf("dev's conventional roots warned of: %+v", got)
	}
	cfg.Roots, cfg.RootsSet = []string{"mine"}, true
	cfg.Prompts = []string{"p/*.md"}
	got := FindUnmatched(config.Resolve(cfg, config.ModeDev), []File{{Path: filepath.Join(dir, "p", "a.md"), Kind: "prompt"}}, nil, true)
	if len(got) != 1 || got[0].Kind != "root" || got[0].Path != filepath.Join(dir, "mine") {
		t.Errorf("unmatched = %+v, want the root mine alone", got)
	}
}
