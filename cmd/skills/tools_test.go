package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/iii-hq/skills-go/internal/tools"
)

const gitSkill = "---\nname: git\nversion: 1.0.0\ndescription: Git, read only.\nread_only: true\n---\n# Git\n\n" +
	"### git_status\n\nShow the status.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```bash\ngit status --short\n```\n"

// skills tools list / approve / revoke over a config's roots: approvals
// are written to tools.lock next to the config with the file's sha256; an
// edit shows as changed; without a terminal, approving needs --yes.
func TestToolsCommand(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgPath, "roots: [agents]\ntools: {enabled: true}\n")
	skillPath := filepath.Join(dir, "agents", "git", "SKILL.md")
	for _, sub := range []string{"git", "notes", "bad"} {
		if err := os.MkdirAll(filepath.Join(dir, "agents", sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, skillPath, gitSkill)
	writeFile(t, filepath.Join(dir, "agents", "notes", "SKILL.md"), "---\nname: notes\ndescription: Plain.\n---\n# Notes\n")
	writeFile(t, filepath.Join(dir, "agents", "bad", "SKILL.md"), strings.Replace(gitSkill, "name: git", "name: bad", 1)+"\n### git_status\n\nAgain.\n\n#### Command\n\n```\ngit log\n```\n")
	ctx := context.Background()

	code, out, errOut := runCmd(t, ctx, "tools", "list", "--config", cfgPath)
	if code != 0 || !hasRow(out, "pending", "git") || !strings.Contains(out, "git::git_status") ||
		!hasRow(out, "invalid", "bad") || !strings.Contains(out, "duplicate tool name git_status") || strings.Contains(out, "notes") {
		t.Errorf("list: code %d\n%s%s", code, out, errOut)
	}

	code, _, errOut = runCmd(t, ctx, "tools", "approve", "git", "--config", cfgPath)
	if code != 2 || !strings.Contains(errOut, "not asking without a terminal") {
		t.Errorf("approve without a terminal: code %d, %s", code, errOut)
	}
	if code, _, errOut = runCmd(t, ctx, "tools", "approve", "bad", "--yes", "--config", cfgPath); code != 1 || !strings.Contains(errOut, "bad cannot be approved") {
		t.Errorf("approve of an invalid skill: code %d, %s", code, errOut)
	}
	if code, _, errOut = runCmd(t, ctx, "tools", "approve", "nope", "--yes", "--config", cfgPath); code != 2 || !strings.Contains(errOut, `no SKILL.md with tools has the id "nope"; the tool skills are: bad, git`) {
		t.Errorf("approve of an unknown skill: code %d, %s", code, errOut)
	}
	code, out, errOut = runCmd(t, ctx, "tools", "approve", "git", "--yes", "--config", cfgPath)
	if code != 0 || !strings.Contains(out, "git::git_status runs: git status --short") || !hasRow(out, "approved", "git") {
		t.Fatalf("approve --yes: code %d\n%s%s", code, out, errOut)
	}
	lock, err := tools.ReadLock(filepath.Join(dir, "tools.lock"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(skillPath)
	if a := lock.Approved[skillPath]; a.SHA256 != tools.Sum(raw) || a.Skill != "git" {
		t.Errorf("lock = %+v", lock)
	}
	if fi, err := os.Stat(filepath.Join(dir, "tools.lock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("tools.lock mode = %v, %v; want 0600", fi.Mode(), err)
	}
	if _, out, _ = runCmd(t, ctx, "tools", "list", "--config", cfgPath); !hasRow(out, "approved", "git") {
		t.Errorf("list after approve:\n%s", out)
	}
	writeFile(t, skillPath, strings.Replace(gitSkill, "--short", "--porcelain", 1))
	if _, out, _ = runCmd(t, ctx, "tools", "list", "--config", cfgPath); !hasRow(out, "changed", "git") {
		t.Errorf("list after an edit:\n%s", out)
	}
	if code, out, _ = runCmd(t, ctx, "tools", "revoke", "git", "--config", cfgPath); code != 0 || !strings.Contains(out, "revoked git") {
		t.Errorf("revoke: code %d %s", code, out)
	}
	if code, _, errOut = runCmd(t, ctx, "tools", "revoke", "git", "--config", cfgPath); code != 2 || !strings.Contains(errOut, "has no approval") {
		t.Errorf("second revoke: code %d %s", code, errOut)
	}
	if _, out, _ = runCmd(t, ctx, "tools", "list", "--config", cfgPath); !hasRow(out, "pending", "git") {
		t.Errorf("list after revoke:\n%s", out)
	}
}

// hasRow reports whether the list output has a row with that status and
// skill id.
func hasRow(out, status, id string) bool {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == status && f[1] == id {
			return true
		}
	}
	return false
}

// On a terminal, approve shows each command and asks; only a yes
// approves.
func TestToolsApproveAsksOnATerminal(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgPath, "roots: [agents]\n")
	for _, name := range []string{"git", "other"} {
		if err := os.MkdirAll(filepath.Join(dir, "agents", name), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "agents", name, "SKILL.md"), strings.Replace(gitSkill, "name: git", "name: "+name, 1))
	}
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	// The answers wait in the terminal's input until the prompts read them.
	if _, err := master.Write([]byte("y\nno\n")); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	err = run(context.Background(), []string{"tools", "approve", "git", "other", "--config", cfgPath}, stdio{in: tty, out: &out, err: &errOut})
	if err != nil {
		t.Fatalf("approve: %v\n%s", err, errOut.String())
	}
	if got := out.String(); strings.Count(got, "Approve these commands? [y/N]") != 2 ||
		!strings.Contains(got, "git::git_status runs: git status --short") || !strings.Contains(got, "approved git") || !strings.Contains(got, "not approved") {
		t.Errorf("output:\n%s", got)
	}
	lock, err := tools.ReadLock(filepath.Join(dir, "tools.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lock.Approved[filepath.Join(dir, "agents", "git", "SKILL.md")]; !ok || len(lock.Approved) != 1 {
		t.Errorf("approved = %v, want git only", lock.Approved)
	}
}

// Standard input from /dev/null is a character device but no terminal:
// approve refuses it as it refuses a pipe, and leaves tools.lock alone.
func TestToolsApproveRefusesDevNull(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgPath, "roots: [agents]\n")
	if err := os.MkdirAll(filepath.Join(dir, "agents", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "agents", "git", "SKILL.md"), gitSkill)
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	var out, errOut strings.Builder
	code := exitCode(run(t.Context(), []string{"tools", "approve", "git", "--config", cfgPath}, stdio{in: devNull, out: &out, err: &errOut}), &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "not asking without a terminal") || strings.Contains(out.String(), "Approve these commands?") {
		t.Errorf("approve with stdin %s: exit %d\nstdout: %s\nstderr: %s\nwant exit 2 and the refusal, no prompt", os.DevNull, code, out.String(), errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "tools.lock")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("tools.lock after a refused approve: %v, want none", err)
	}
}

// A config named with --config that does not exist is most likely a typo:
// tools refuses rather than list or approve with the defaults, next to a
// tools.lock the worker would never read.
func TestToolsRefusesAMissingNamedConfig(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	for _, verb := range []string{"list", "approve"} {
		var out, errOut strings.Builder
		code := exitCode(run(t.Context(), []string{"tools", verb, "--config", missing, "--yes"}, stdio{out: &out, err: &errOut}), &errOut)
		if code != 1 || !strings.Contains(errOut.String(), "config "+missing+": no such file; give the path of an existing config file") {
			t.Errorf("tools %s --config %s: exit %d\nstdout: %s\nstderr: %s\nwant exit 1 naming the missing file", verb, missing, code, out.String(), errOut.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "tools.lock")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("tools.lock after tools %s with a missing config: %v, want none", verb, err)
		}
	}
}
