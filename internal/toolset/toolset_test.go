//go:build unix

package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/tools"
)

const waitTimeout = 10 * time.Second

const echoSkill = `---
name: echo
version: 1.0.0
description: Echo things back.
read_only: true
timeout: 5
---
# Echo

### say

Print the words, one per line.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| words | array | yes | What to print. |
| loud | boolean | no | Shout. |

#### Command

` + "```" + `
printf '%s\n' {{loud:LOUD:}} {{words}}
` + "```" + `
`

// rig is a local engine, a worker client serving a Set over a skills
// folder, and a caller.
type rig struct {
	srv    *engine.Engine
	set    *Set
	src    *fsource.Source
	caller *iii.Client
	dir    string
	lock   string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	srv := iiitest.NewServer(t)
	dir := t.TempDir()
	worker := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	src := fsource.New(dir, nil, nil, fsource.Roots("skills"))
	set := New(Options{Registrar: worker, Runner: tools.NewRunner(tools.RunnerOptions{}),
		LockPath: filepath.Join(dir, "tools.lock"), LockPoll: 20 * time.Millisecond, ReadFile: src.ReadFile})
	worker.Start()
	set.Start()
	t.Cleanup(func() {
		set.Close()
		worker.Close()
	})
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "caller"})
	caller.Start()
	t.Cleanup(func() { caller.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, c := range []*iii.Client{worker, caller} {
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return &rig{srv: srv, set: set, src: src, caller: caller, dir: dir, lock: filepath.Join(dir, "tools.lock")}
}

func (r *rig) write(t *testing.T, rel, content string) string {
	t.Helper()
	path := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sync hands the set what the overlay sees now, as the watch does.
func (r *rig) sync() {
	skills, _ := r.src.Skills()
	r.set.Sync(skills)
}

func (r *rig) approve(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := tools.ReadLock(r.lock)
	if err != nil {
		t.Fatal(err)
	}
	lock.Approved[path] = tools.Approval{Skill: "echo", SHA256: tools.Sum(raw)}
	if err := lock.Write(r.lock); err != nil {
		t.Fatal(err)
	}
}

func (r *rig) call(t *testing.T, fn, payload string) (tools.Envelope, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	out, err := r.caller.Call(ctx, fn, json.RawMessage(payload))
	if err != nil {
		return tools.Envelope{}, err
	}
	var env tools.Envelope
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("%s answered %s: %v", fn, out, err)
	}
	return env, nil
}

// An approved SKILL.md's tool is a function; a change to the file takes
// it away until the new file is approved; a revocation takes it away.
func TestApprovedToolsAreServedAndFollowTheFileAndTheLock(t *testing.T) {
	r := newRig(t)
	path := r.write(t, "skills/echo/SKILL.md", echoSkill)
	r.sync()
	if e := r.set.Entries(); len(e) != 1 || e[0].Status != tools.StatusPending || e[0].ID != "echo" {
		t.Fatalf("entries = %+v, want echo pending", e)
	}
	if _, ok := r.srv.Function("echo::say"); ok {
		t.Fatal("an unapproved tool was registered")
	}

	r.approve(t, path) // the set sees the lock change by itself
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := r.srv.WaitFunction(ctx, "echo::say"); err != nil {
		t.Fatalf("the approved tool was not registered: %v", err)
	}
	f, _ := r.srv.Function("echo::say")
	var meta map[string]any
	if err := json.Unmarshal(f.Metadata, &meta); err != nil || meta["mcp.expose"] != true {
		t.Errorf("metadata = %s", f.Metadata)
	}
	env, err := r.call(t, "echo::say", `{"words": ["a b", "$HOME;"], "loud": true}`)
	if err != nil || !env.Success || env.Output != "LOUD:\na b\n$HOME;\n" {
		t.Errorf("call = %+v, %v", env, err)
	}
	if _, err := r.call(t, "echo::say", `{"loud": true}`); err == nil || !strings.Contains(err.Error(), "missing required parameter words") {
		t.Errorf("a call without a required argument: %v", err)
	}

	r.write(t, "skills/echo/SKILL.md", strings.Replace(echoSkill, "printf", "echo", 1))
	r.sync()
	if err := r.srv.WaitFunctionGone(ctx, "echo::say"); err != nil {
		t.Fatalf("the tool of a changed file is still served: %v", err)
	}
	if e := r.set.Entries(); len(e) != 1 || e[0].Status != tools.StatusChanged {
		t.Errorf("entries = %+v, want changed", e)
	}
	r.approve(t, path)
	if err := r.srv.WaitFunction(ctx, "echo::say"); err != nil {
		t.Fatalf("the re-approved tool was not registered: %v", err)
	}
	if err := (tools.Lock{Approved: map[string]tools.Approval{}}).Write(r.lock); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitFunctionGone(ctx, "echo::say"); err != nil {
		t.Fatalf("a revoked tool is still served: %v", err)
	}
}

// A SKILL.md whose tools do not parse is reported invalid and serves
// nothing, approved or not; a reserved skill name serves nothing either.
func TestInvalidAndReservedToolSkillsServeNothing(t *testing.T) {
	r := newRig(t)
	bad := r.write(t, "skills/bad/SKILL.md", strings.Replace(echoSkill, "| loud | boolean |", "| loud | map |", 1))
	reserved := r.write(t, "skills/engine/SKILL.md", strings.Replace(echoSkill, "name: echo", "name: engine", 1))
	r.approve(t, bad)
	r.approve(t, reserved)
	r.sync()
	for _, e := range r.set.Entries() {
		switch e.ID {
		case "bad":
			if e.Status != tools.StatusInvalid || !strings.Contains(e.Reason, `unknown type "map"`) {
				t.Errorf("bad: %+v", e)
			}
		case "engine":
			if e.Status != tools.StatusApproved || !strings.Contains(e.Reason, "reserved namespace engine::") {
				t.Errorf("engine: %+v", e)
			}
		}
	}
	for _, fn := range r.srv.Functions() {
		if strings.HasSuffix(fn.ID, "::say") {
			t.Errorf("%s was registered", fn.ID)
		}
	}
}

// A tool skill whose folder is swapped for a link out of the roots is not
// read again from there, though the set still holds the old listing (as
// between a swap and the next scan, when the lock changes): its tools are
// never parsed from the outside file.
func TestSyncRefusesAFolderSwappedOutOfTheRoots(t *testing.T) {
	r := newRig(t)
	path := r.write(t, "skills/echo/SKILL.md", echoSkill)
	r.approve(t, path)
	skills, _ := r.src.Skills()
	r.set.Sync(skills)
	if e := r.set.Entries(); len(e) != 1 || len(e[0].Tools) != 1 || e[0].Tools[0] != "say" {
		t.Fatalf("before the swap: %+v", e)
	}
	outside := t.TempDir()
	secret := strings.Replace(echoSkill, "### say", "### outsidesecret", 1)
	if err := os.MkdirAll(filepath.Join(outside, "echo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "echo", "SKILL.md"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "echo"), filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	r.set.Sync(skills) // the listing from before the swap
	for _, e := range r.set.Entries() {
		if len(e.Tools) > 0 {
			t.Errorf("tools read through the swapped folder: %+v", e)
		}
	}
}

const sortSkill = `---
name: sorter
version: 1.0.0
description: Sort a file.
---
### sort

Sort the lines of a file.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| file | string | yes | The file. |

#### Command

` + "```" + `
sort {{file}}
` + "```" + `
`

// A value never becomes an option of the program: sort {{file}} given
// --output=pwned.txt would write the file, and --files0-from=f would
// echo f. The call is refused as invalid_argument before anything runs;
// a file whose name begins with "-" is reached as ./-name.
func TestAValueNeverBecomesAnOption(t *testing.T) {
	r := newRig(t)
	path := r.write(t, "skills/sorter/SKILL.md", sortSkill)
	r.write(t, "skills/sorter/-r", "b\na\n")
	r.approve(t, path)
	r.sync()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := r.srv.WaitFunction(ctx, "sorter::sort"); err != nil {
		t.Fatal(err)
	}
	for _, value := range []string{"--output=pwned.txt", "--files0-from=/etc/hostname", "-r"} {
		env, err := r.call(t, "sorter::sort", `{"file": "`+value+`"}`)
		var ie *iii.Error
		if !errors.As(err, &ie) || ie.Code != iii.CodeInvalidArgument ||
			!strings.HasPrefix(ie.Message, `parameter file: the value "`+value+`" begins with "-", so sort could take it for an option`) {
			t.Errorf("file=%s: %+v, %v; want an invalid_argument error", value, env, err)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, "skills/sorter/pwned.txt")); err == nil {
		t.Error("sort wrote pwned.txt")
	}
	env, err := r.call(t, "sorter::sort", `{"file": "./-r"}`)
	if err != nil || !env.Success || env.Output != "a\nb\n" {
		t.Errorf("file=./-r: %+v, %v", env, err)
	}
}
