package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/tools"
)

// toolRow is a row of the tools section of skills doctor --json and of
// skills::diagnostics.
type toolRow struct {
	Skill, Tool, Status, Reason string
}

// skills tools, skills doctor and the worker judge a tool skill by one
// function (toolset.Classify): a skill named engine, approved in the lock
// (as an older binary could write it), is reported approved but not
// served, with the same reason, by the CLI and by the running worker, and
// the worker serves none of its tools; skills tools approve refuses it.
// A second skill with a function id already served is reported alike.
func TestCLIAndWorkerClassifyToolSkillsAlike(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgPath, "roots: [agents]\ntools: {enabled: true}\n")
	for folder, name := range map[string]string{"git": "git", "engine": "engine", "dup": "git"} {
		if err := os.MkdirAll(filepath.Join(dir, "agents", folder), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "agents", folder, "SKILL.md"), strings.Replace(gitSkill, "name: git", "name: "+name, 1))
	}
	ctx := context.Background()

	code, _, errOut := runCmd(t, ctx, "tools", "approve", "engine", "--yes", "--config", cfgPath)
	if want := `engine cannot be approved: the skill name "engine" would put its tools in the reserved namespace engine::`; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("approve engine: code %d, %s; want %q", code, errOut, want)
	}
	if code, out, errOut := runCmd(t, ctx, "tools", "approve", "git", "dup", "--yes", "--config", cfgPath); code != 0 {
		t.Fatalf("approve git dup: code %d\n%s%s", code, out, errOut)
	}
	lockPath := filepath.Join(dir, tools.LockFile)
	lock, err := tools.ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	enginePath := filepath.Join(dir, "agents", "engine", "SKILL.md")
	raw, err := os.ReadFile(enginePath)
	if err != nil {
		t.Fatal(err)
	}
	lock.Approved[enginePath] = tools.Approval{Skill: "engine", SHA256: tools.Sum(raw)}
	if err := lock.Write(lockPath); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCmd(t, ctx, "tools", "list", "--config", cfgPath)
	if code != 0 || !hasRow(out, "approved", "engine") || !strings.Contains(out, "engine::git_status (not served: the skill name \"engine\" would put its tools in the reserved namespace engine::)") ||
		!strings.Contains(out, "git::git_status (not served: function git::git_status is already served by another skill)") {
		t.Errorf("tools list: code %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCmd(t, ctx, "doctor", "--json", "--config", cfgPath)
	var offline struct{ Tools []toolRow }
	if err := json.Unmarshal([]byte(out), &offline); err != nil || code != 0 {
		t.Fatalf("doctor --json: %v, exit %d\n%s", err, code, out)
	}
	want := []toolRow{
		{Skill: "dup", Tool: "git_status", Status: "approved"},
		{Skill: "engine", Tool: "git_status", Status: "approved", Reason: `the skill name "engine" would put its tools in the reserved namespace engine::`},
		{Skill: "git", Tool: "git_status", Status: "approved", Reason: "function git::git_status is already served by another skill"},
	}
	if diff := cmp.Diff(want, offline.Tools); diff != "" {
		t.Errorf("skills doctor tools (-want +got):\n%s", diff)
	}

	srv := iiitest.NewServer(t)
	startWorker(t, srv, "--config", cfgPath)
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, id := range []string{"skills::diagnostics", "git::git_status"} {
		if err := srv.WaitFunction(waitCtx, id); err != nil {
			t.Fatalf("the worker never registered %s: %v", id, err)
		}
	}
	res, err := newCaller(t, srv).Call(ctx, "skills::diagnostics", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var online struct{ Tools []toolRow }
	if err := json.Unmarshal(res, &online); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(offline.Tools, online.Tools); diff != "" {
		t.Errorf("skills::diagnostics tools differ from skills doctor's (-doctor +worker):\n%s", diff)
	}
	for _, fn := range srv.Functions() {
		if strings.HasPrefix(fn.ID, "engine::git") {
			t.Errorf("the worker serves %s, a reserved namespace", fn.ID)
		}
	}
}
