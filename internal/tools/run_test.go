//go:build unix

package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/proctest"
)

func newTestRunner(t *testing.T, o RunnerOptions) *Runner {
	t.Helper()
	if o.Environ == nil {
		o.Environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/tester", "LANG=C.UTF-8", "LC_ALL=C",
			"GITHUB_TOKEN=ghp_secret", "AWS_REGION=eu-west-1", "OPENAI_API_KEY=sk-1", "MY_SECRET=s",
			"DB_PASSWORD=p", "CUSTOM_SETTING=on", "CUSTOM_TOKEN=t"}
	}
	return NewRunner(o)
}

// Arguments with spaces, quotes, $HOME and shell syntax reach the program
// as written, one argument each: no shell ever sees them.
func TestRunPassesArgumentsLiterally(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{})
	args := []string{"a b", `it's "quoted"`, "$HOME", "; rm -rf /", "| cat", "*", "`id`", "$(id)", ""}
	env := r.Run(context.Background(), Call{Skill: "t", Dir: t.TempDir(), Program: "printf", Args: append([]string{`<%s>\n`}, args...)})
	if !env.Success || env.ExitCode != 0 {
		t.Fatalf("envelope = %+v", env)
	}
	var want strings.Builder
	for _, a := range args {
		fmt.Fprintf(&want, "<%s>\n", a)
	}
	if env.Output != want.String() {
		t.Errorf("output = %q, want %q", env.Output, want.String())
	}
}

// The command sees only the passed variables, those allowed, and
// SKILL_NAME / SKILL_DIR; a credential only when env_allow names it
// exactly (GITHUB_TOKEN, DB_PASSWORD), never through a glob
// (CUSTOM_TOKEN).
func TestRunFiltersTheEnvironment(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{EnvAllow: []string{"CUSTOM_*", "GITHUB_TOKEN", "DB_PASSWORD"}})
	dir := t.TempDir()
	env := r.Run(context.Background(), Call{Skill: "envy", Dir: dir, Program: "env"})
	if !env.Success {
		t.Fatalf("envelope = %+v", env)
	}
	got := strings.Split(strings.TrimSpace(env.Output), "\n")
	slices.Sort(got)
	want := []string{"CUSTOM_SETTING=on", "DB_PASSWORD=p", "GITHUB_TOKEN=ghp_secret", "HOME=/home/tester", "LANG=C.UTF-8", "LC_ALL=C",
		"PATH=" + os.Getenv("PATH"), "SKILL_DIR=" + dir, "SKILL_NAME=envy"}
	if !slices.Equal(got, want) {
		t.Errorf("environment = %q\nwant %q", got, want)
	}
}

// env_allow: ["*"] passes everything but credentials, judged by name
// (PGPASSWORD, SSH_AUTH_SOCK, DATABASE_URL, AWS_*) and by value (a URL
// with a password, a token by its format).
func TestRunWithEverythingAllowedPassesNoCredential(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{EnvAllow: []string{"*"}, Environ: []string{
		"PATH=" + os.Getenv("PATH"), "EDITOR=vi", "PGPASSWORD=pw", "DATABASE_URL=postgres://app:pw@db/app",
		"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "AWS_SECRET_ACCESS_KEY=k", "GOOGLE_APPLICATION_CREDENTIALS=/k.json",
		"UPSTREAM=https://u:pw@example.com/", "PASTED=ghp_0123456789abcdefghijklmnopqrstuvwxyz",
	}})
	dir := t.TempDir()
	env := r.Run(context.Background(), Call{Skill: "envy", Dir: dir, Program: "env"})
	got := strings.Split(strings.TrimSpace(env.Output), "\n")
	slices.Sort(got)
	want := []string{"EDITOR=vi", "PATH=" + os.Getenv("PATH"), "SKILL_DIR=" + dir, "SKILL_NAME=envy"}
	if !env.Success || !slices.Equal(got, want) {
		t.Errorf("environment = %q (%+v)\nwant %q", got, env, want)
	}
}

// A failing command is a result, not an error: success false, its exit
// code and its output. Empty stdin: a reader ends at once.
func TestRunReportsExitCodesAndParsesJSON(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{})
	dir := t.TempDir()
	env := r.Run(context.Background(), Call{Dir: dir, Program: "sh", Args: []string{"-c", "echo oops >&2; exit 3"}})
	if env.Success || env.ExitCode != 3 || env.Error != "Command failed with exit code 3" || env.Output != "oops\n" {
		t.Errorf("failing command: %+v", env)
	}
	env = r.Run(context.Background(), Call{Dir: dir, Program: "cat"})
	if !env.Success || env.Output != "" {
		t.Errorf("cat with empty stdin: %+v", env)
	}
	env = r.Run(context.Background(), Call{Dir: dir, Program: "printf", Args: []string{`{"status": "ok", "count": 5}` + "\n"}})
	if !env.Success || string(env.Parsed) != `{"status": "ok", "count": 5}` {
		t.Errorf("JSON output: %+v", env)
	}
	b, err := json.Marshal(env)
	if err != nil || !strings.Contains(string(b), `"parsed":{"status":"ok","count":5}`) {
		t.Errorf("envelope JSON = %s, %v", b, err)
	}
	env = r.Run(context.Background(), Call{Dir: dir, Program: "echo", Args: []string{"not json"}})
	if env.Parsed != nil {
		t.Errorf("plain output parsed as %s", env.Parsed)
	}
}

// 100 KB of output comes back as its first and last 2 KiB with the count
// of what was left out between them.
func TestRunTruncatesHeadAndTail(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{})
	script := `i=0; while [ $i -lt 2000 ]; do printf 'line %04d ........................................\n' $i; i=$((i+1)); done`
	env := r.Run(context.Background(), Call{Dir: t.TempDir(), Program: "sh", Args: []string{"-c", script}})
	if !env.Success || !env.Truncated {
		t.Fatalf("envelope: success %v truncated %v error %q", env.Success, env.Truncated, env.Error)
	}
	total := 2000 * len("line 0000 ........................................\n")
	want := fmt.Sprintf("\n... [truncated %d bytes] ...\n", total-HeadBytes-TailBytes)
	head, tail, ok := strings.Cut(env.Output, want)
	if !ok {
		t.Fatalf("no marker %q in output of %d bytes", want, len(env.Output))
	}
	if len(head) != HeadBytes || !strings.HasPrefix(head, "line 0000 ") || len(tail) != TailBytes || !strings.HasSuffix(tail, "line 1999 ........................................\n") {
		t.Errorf("head %d bytes %.20q…, tail %d bytes …%.20q", len(head), head, len(tail), tail[max(0, len(tail)-20):])
	}
}

// On timeout the whole process group is stopped, a grandchild included,
// and one that ignores SIGTERM is killed after the grace.
func TestRunTimeoutKillsTheProcessGroup(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{KillGrace: 300 * time.Millisecond})
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	script := fmt.Sprintf(`trap "" TERM; sleep 300 & echo $! > %s; wait`, pidFile)
	env := r.Run(context.Background(), Call{Dir: dir, Program: "sh", Args: []string{"-c", script}, Timeout: time.Second})
	if env.Success || env.ExitCode != -1 || env.Error != "timed out after 1s" {
		t.Errorf("envelope = %+v", env)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL was sent before Run returned; its delivery is the kernel's,
	// so the check allows it a moment.
	if err := proctest.Ended(pid, 5*time.Second); err != nil {
		t.Fatalf("the grandchild after the timeout: %v", err)
	}
}

// Programs that cannot run say why, in the envelope's words.
func TestRunProgramErrors(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.sh"), []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.sh"), []byte("#!/bin/sh\necho \"from $SKILL_NAME in $PWD\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for program, want := range map[string]string{
		"definitely-not-a-program-xyz": "program not found: definitely-not-a-program-xyz",
		"./missing.sh":                 "program not found: ./missing.sh",
		"./x.sh":                       "permission denied: ./x.sh",
		"./../outside.sh":              "program ./../outside.sh leaves the skill folder",
		"../outside.sh":                "program ../outside.sh leaves the skill folder",
	} {
		env := r.Run(context.Background(), Call{Dir: dir, Program: program})
		if env.Success || env.ExitCode != -1 || env.Error != want {
			t.Errorf("%s: %+v, want error %q", program, env, want)
		}
	}
	env := r.Run(context.Background(), Call{Skill: "demo", Dir: dir, Program: "./ok.sh"})
	if !env.Success || env.Output != "from demo in "+dir+"\n" {
		t.Errorf("./ok.sh: %+v", env)
	}
}

// At most MaxConcurrent commands run at once: another call waits, and
// gives up without running if its caller does.
func TestRunLimitsConcurrency(t *testing.T) {
	r := newTestRunner(t, RunnerOptions{MaxConcurrent: 1, KillGrace: 100 * time.Millisecond})
	dir := t.TempDir()
	first, cancelFirst := context.WithCancel(context.Background())
	done := make(chan Envelope)
	started := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(started, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- r.Run(first, Call{Dir: dir, Program: "sh", Args: []string{"-c", "echo > started; exec sleep 300"}})
	}()
	// The first call holds the only slot once its command runs, and the
	// command says it runs by writing to the fifo.
	if err := awaitFifo(started, done); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "second-ran")
	second, cancelSecond := context.WithCancel(context.Background())
	secondDone := make(chan Envelope)
	go func() { secondDone <- r.Run(second, Call{Dir: dir, Program: "touch", Args: []string{marker}}) }()
	cancelSecond()
	if env := <-secondDone; env.Success || !strings.HasPrefix(env.Error, "cancelled before it started") {
		t.Errorf("the waiting call: %+v", env)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a call beyond the limit ran")
	}
	cancelFirst()
	if env := <-done; env.Success || !strings.HasPrefix(env.Error, "cancelled") || env.ExitCode != -1 {
		t.Errorf("the cancelled call: %+v", env)
	}
}

// tools.workdir replaces the skill folder as the working directory;
// ./programs still resolve in the skill folder.
func TestRunWorkdir(t *testing.T) {
	work, skill := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(skill, "where.sh"), []byte("#!/bin/sh\npwd\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newTestRunner(t, RunnerOptions{Workdir: work})
	env := r.Run(context.Background(), Call{Dir: skill, Program: "./where.sh"})
	if !env.Success || env.Output != work+"\n" {
		t.Errorf("pwd with a workdir = %+v, want %s", env, work)
	}
}

// awaitFifo reads a line from the fifo at path, written by a command a
// call runs; it fails if the call ends first or nothing comes in 5 s.
func awaitFifo(path string, done <-chan Envelope) error {
	read := make(chan error, 1)
	go func() {
		f, err := os.Open(path) // blocks until the command opens it to write
		if err == nil {
			_, err = bufio.NewReader(f).ReadString('\n')
			f.Close()
		}
		read <- err
	}()
	select {
	case err := <-read:
		return err
	case env := <-done:
		return fmt.Errorf("the call ended before its command wrote to %s: %+v", path, env)
	case <-time.After(5 * time.Second):
		return fmt.Errorf("the command did not write to %s within 5 s", path)
	}
}
