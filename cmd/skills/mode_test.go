package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skills tools and skills doctor look at the files the worker with the
// same config and mode serves (config.Resolve): without a roots key the
// worker serves no roots, so neither finds a tool skill in ./skills
// unless given --dev, which stands for skills dev and adds the usual
// Agent Skills folders.
func TestToolsAndDoctorFollowTheWorkersMode(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home")) // ~/.claude/skills and ~/.codex/skills: empty
	if err := os.MkdirAll(filepath.Join(dir, "skills", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "skills", "git", "SKILL.md"), gitSkill)
	cfgPath := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgPath, "tools: {enabled: true}\n")
	ctx := context.Background()

	code, out, errOut := runCmd(t, ctx, "tools", "list", "--config", cfgPath)
	if code != 0 || hasRow(out, "pending", "git") || !strings.Contains(out, "the config has no roots key, so the worker serves no roots; --dev searches") {
		t.Errorf("tools list as the worker: code %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCmd(t, ctx, "tools", "approve", "git", "--yes", "--config", cfgPath)
	if code != 2 || !strings.Contains(errOut, `no SKILL.md with tools has the id "git"`) || !strings.Contains(errOut, "--dev searches") {
		t.Errorf("tools approve as the worker: code %d, %s", code, errOut)
	}
	if code, out, errOut = runCmd(t, ctx, "tools", "list", "--dev", "--config", cfgPath); code != 0 || !hasRow(out, "pending", "git") {
		t.Errorf("tools list --dev: code %d\n%s%s", code, out, errOut)
	}
	if code, out, _ = runCmd(t, ctx, "doctor", "--config", cfgPath); code != 0 || strings.Contains(out, "git::git_status") || !strings.Contains(out, "ROOTS (0)") {
		t.Errorf("doctor as the worker: code %d\n%s", code, out)
	}
	if code, out, _ = runCmd(t, ctx, "doctor", "--dev", "--config", cfgPath); code != 0 || !strings.Contains(out, "pending  git::git_status") ||
		!strings.Contains(out, "ok       1 skills  "+filepath.Join(dir, "skills")) {
		t.Errorf("doctor --dev: code %d\n%s", code, out)
	}
}
