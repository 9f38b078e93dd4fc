package config_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/config"
)

// Resolve is the one rule for a config without a roots key: every command
// calls it with its mode, so the worker, skills dev, skills mcp --dev,
// skills doctor and skills tools agree on the roots a config serves.
func TestResolve(t *testing.T) {
	type roots struct {
		Roots []string
		Set   bool
	}
	for _, tc := range []struct {
		name string
		yaml string
		mode config.Mode
		want roots
	}{
		{"worker, no roots key: no roots (0.2), skills::roots::* keep upstream's defaults",
			"skills: [docs/*.md]\n", config.ModeWorker, roots{Roots: []string{}}},
		{"dev, no roots key: the conventional Agent Skills folders, as configured",
			"skills: [docs/*.md]\n", config.ModeDev, roots{Roots: config.ConventionalRoots, Set: true}},
		{"worker, roots: []: none, and configured",
			"roots: []\n", config.ModeWorker, roots{Roots: []string{}, Set: true}},
		{"dev, roots: []: none either; an empty key is a key",
			"roots: []\n", config.ModeDev, roots{Roots: []string{}, Set: true}},
		{"worker, roots named: those",
			"roots: [agents]\n", config.ModeWorker, roots{Roots: []string{"agents"}, Set: true}},
		{"dev, roots named: those, not the conventional ones",
			"roots: [agents]\n", config.ModeDev, roots{Roots: []string{"agents"}, Set: true}},
		{"dev, roots: ~ is no key",
			"roots: ~\n", config.ModeDev, roots{Roots: config.ConventionalRoots, Set: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			got := config.Resolve(cfg, tc.mode)
			if diff := cmp.Diff(tc.want, roots{Roots: got.Roots, Set: got.RootsSet}); diff != "" {
				t.Errorf("Resolve(%q, %v) roots (-want +got):\n%s", tc.yaml, tc.mode, diff)
			}
			if diff := cmp.Diff(cfg.Skills, got.Skills); diff != "" {
				t.Errorf("Resolve changed skills (-want +got):\n%s", diff)
			}
		})
	}
}

// The conventional roots Resolve hands out are a copy: a caller editing
// its config cannot change another command's.
func TestResolveCopiesConventionalRoots(t *testing.T) {
	got := config.Resolve(config.Default(), config.ModeDev)
	got.Roots[0] = "elsewhere"
	if config.ConventionalRoots[0] == "elsewhere" {
		t.Fatal("Resolve returned config.ConventionalRoots itself")
	}
}

func ExampleResolve() {
	noKey := config.Default() // a config without a roots key, or none at all
	for _, mode := range []config.Mode{config.ModeWorker, config.ModeDev} {
		cfg := config.Resolve(noKey, mode)
		fmt.Println(mode, cfg.Roots, cfg.RootsSet)
	}
	named, _ := config.Parse([]byte("roots: [agents]\n"))
	fmt.Println(config.Resolve(named, config.ModeDev).Roots)
	// Output:
	// worker [] false
	// dev [./skills ./.agents/skills ~/.claude/skills ~/.codex/skills] true
	// [agents]
}
