//go:build unix

package fsource

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// finishes runs fn and fails the test if it has not returned within d: a
// walk or read that hangs must fail the test, not stall the suite.
func finishes(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func TestFIFOUnderAGlobIsSkippedWithAReason(t *testing.T) {
	dir := writeTree(t, map[string]string{"s/ok.md": "---\ndescription: ok\n---\nok\n"})
	mkfifo(t, filepath.Join(dir, "s", "pipe.md"))
	src := New(dir, []string{"s/*.md"}, []string{"s/*.md"})
	finishes(t, 10*time.Second, func() {
		skills, skips := src.Skills()
		if diff := cmp.Diff([]string{"ok {dir}/s/ok.md"}, skillLines(dir, skills)); diff != "" {
			t.Errorf("skills (-want +got):\n%s", diff)
		}
		want := []string{"skill {dir}/s/pipe.md: {dir}/s/pipe.md is a named pipe (FIFO); only regular files are served"}
		if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
			t.Errorf("skill skips (-want +got):\n%s", diff)
		}
		prompts, skips := src.Prompts()
		if diff := cmp.Diff([]string{"ok {dir}/s/ok.md: ok"}, promptLines(dir, prompts)); diff != "" {
			t.Errorf("prompts (-want +got):\n%s", diff)
		}
		want = []string{"prompt {dir}/s/pipe.md: {dir}/s/pipe.md is a named pipe (FIFO); only regular files are served"}
		if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
			t.Errorf("prompt skips (-want +got):\n%s", diff)
		}
	})
}

// A FIFO swapped in after the stat: the read opens without blocking and
// checks what it opened.
func TestReadingAFIFODoesNotHang(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.md")
	mkfifo(t, fifo)
	finishes(t, 10*time.Second, func() {
		_, err := readRegular(fifo, nil)
		if want := "is a named pipe (FIFO); only regular files are served"; err == nil || err.Error() != want {
			t.Errorf("readRegular(fifo) = %v, want %q", err, want)
		}
		_, err = ReadBody(fifo)
		if want := "read " + fifo + ": is a named pipe (FIFO); only regular files are served"; err == nil || err.Error() != want {
			t.Errorf("ReadBody(fifo) = %v, want %q", err, want)
		}
	})
}

func TestSocketUnderAGlobIsSkippedWithAReason(t *testing.T) {
	dir := writeTree(t, map[string]string{"s/ok.md": "ok"})
	sock := filepath.Join(dir, "s", "sock.md")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer l.Close()
	skills, skips := New(dir, []string{"s/*.md"}, nil).Skills()
	if len(skills) != 1 {
		t.Errorf("skills = %v, want ok only", skillLines(dir, skills))
	}
	want := []string{"skill {dir}/s/sock.md: {dir}/s/sock.md is a socket; only regular files are served"}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestDeviceUnderAGlobIsSkippedWithAReason(t *testing.T) {
	const null = "/dev/null"
	if fi, err := os.Stat(null); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no " + null)
	}
	dir := writeTree(t, map[string]string{"s/null.md": "->" + null})
	src := New(dir, []string{"s/*.md"}, nil, AllowPaths("/dev"))
	_, skips := src.Skills()
	want := []string{"skill {dir}/s/null.md: {dir}/s/null.md is a character device; only regular files are served"}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func loopLine(dir, link, same string) string {
	return fmt.Sprintf("skill %s: directory %s is a symbolic link loop: it is %s again, which contains it; it is not walked again", link, link, same)
}

func TestDirectoryLoopIsWalkedOnce(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"s/ok.md":   "ok",
		"s/loop":    "->.",
		"s/d/in.md": "in",
	})
	var (
		skills []Skill
		skips  []Skip
	)
	finishes(t, 10*time.Second, func() { skills, skips = New(dir, []string{"s/**/*.md"}, nil).Skills() })
	want := []string{"d/in {dir}/s/d/in.md", "ok {dir}/s/ok.md"}
	if diff := cmp.Diff(want, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	wantSkips := []string{loopLine(dir, "{dir}/s/loop", "{dir}/s")}
	if diff := cmp.Diff(wantSkips, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

// Two loops made every listing hang: the walk doubled at each level.
func TestTwoDirectoryLoopsTerminate(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"s/ok.md":    "ok",
		"s/a":        "->.",
		"s/b":        "->.",
		"s/d/up":     "->..",
		"s/d/self":   "->../d",
		"s/d/in.md":  "in",
		"s/d/e/f.md": "f",
	})
	for _, pattern := range []string{"s/**/*.md", "s/**/ok.md", "s/{a,b}/**/*.md", "s/*/*/*/*.md"} {
		t.Run(pattern, func(t *testing.T) {
			var (
				skills []Skill
				skips  []Skip
			)
			finishes(t, 10*time.Second, func() { skills, skips = New(dir, []string{pattern}, nil).Skills() })
			for _, s := range skills {
				if strings.HasPrefix(s.ID, "a/") || strings.HasPrefix(s.ID, "b/") || strings.Contains(s.ID, "up/") || strings.Contains(s.ID, "self/") {
					t.Errorf("skill %s was reached through a loop", s.ID)
				}
			}
			if len(skips) == 0 {
				t.Errorf("no skip reports the loops")
			}
			for _, sk := range skips {
				if !strings.Contains(sk.Reason, "is a symbolic link loop") {
					t.Errorf("unexpected skip %v", sk)
				}
			}
		})
	}
	skills, skips := New(dir, []string{"s/**/*.md"}, nil).Skills()
	want := []string{"d/e/f {dir}/s/d/e/f.md", "d/in {dir}/s/d/in.md", "ok {dir}/s/ok.md"}
	if diff := cmp.Diff(want, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	wantSkips := []string{
		loopLine(dir, "{dir}/s/a", "{dir}/s"),
		loopLine(dir, "{dir}/s/b", "{dir}/s"),
		loopLine(dir, "{dir}/s/d/self", "{dir}/s/d"),
		loopLine(dir, "{dir}/s/d/up", "{dir}/s"),
	}
	if diff := cmp.Diff(wantSkips, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestWalkStopsBelowMaxDepth(t *testing.T) {
	deep := strings.Repeat("d/", MaxDepth) // MaxDepth directories below s
	dir := writeTree(t, map[string]string{
		"s/" + deep + "ok.md":     "ok",
		"s/" + deep + "d/deep.md": "deep",
	})
	skills, skips := New(dir, []string{"s/**/*.md"}, nil).Skills()
	want := []string{strings.TrimSuffix(deep, "/") + "/ok {dir}/s/" + deep + "ok.md"}
	if diff := cmp.Diff(want, skillLines(dir, skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	tooDeep := "{dir}/s/" + deep + "d"
	wantSkips := []string{fmt.Sprintf("skill %s: directory %s is 33 directories below {dir}/s, deeper than the limit of 32; it is not walked", tooDeep, tooDeep)}
	if diff := cmp.Diff(wantSkips, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestWalkStopsAtMaxFiles(t *testing.T) {
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("s/f%d.md", i)] = "x"
	}
	dir := writeTree(t, files)
	skills, skips := New(dir, []string{"s/*.md"}, nil, MaxFiles(5)).Skills()
	if len(skills) != 0 {
		t.Errorf("skills = %v, want none: the one directory is over the cap", skillLines(dir, skills))
	}
	want := []string{"skill s/*.md: walk stopped after 5 directory entries (max_files); the files after them are not listed: narrow the pattern or raise max_files"}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}

	// At the cap exactly, everything is listed; each pattern has its own
	// budget.
	skills, skips = New(dir, []string{"s/f[0-4].md", "s/*.md"}, nil, MaxFiles(10)).Skills()
	if len(skills) != 10 || len(skips) != 0 {
		t.Errorf("skills = %d, skips = %v; want 10 and none", len(skills), skips)
	}
}

func TestDefaultMaxFiles(t *testing.T) {
	if got := New(".", nil, nil).maxFiles; got != 100000 {
		t.Errorf("default maxFiles = %d, want 100000", got)
	}
	if got := New(".", nil, nil, MaxFiles(0)).maxFiles; got != 100000 {
		t.Errorf("MaxFiles(0) = %d, want the default", got)
	}
}

func TestCancelledContextStopsAtOnce(t *testing.T) {
	dir := writeTree(t, map[string]string{"s/a.md": "---\ndescription: a\n---\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := New(dir, []string{"s/*.md"}, []string{"s/*.md"})
	skills, skips := src.SkillsContext(ctx)
	want := []string{"skill s/*.md: walk stopped: context canceled"}
	if len(skills) != 0 {
		t.Errorf("skills = %v, want none", skills)
	}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	prompts, skips := src.PromptsContext(ctx)
	if len(prompts) != 0 || len(skips) != 1 || skips[0].Reason != "walk stopped: context canceled" {
		t.Errorf("prompts = %v, skips = %v", prompts, skips)
	}
}

// A walk that would take minutes (a lattice of directory links, no loop:
// 2^24 paths) stops soon after its context is cancelled.
func TestCancellationStopsARunningWalk(t *testing.T) {
	const levels = 24
	files := map[string]string{}
	for i := range levels {
		next := fmt.Sprintf("../l%d", i+1)
		files[fmt.Sprintf("s/l%d/a", i)] = "->" + next
		files[fmt.Sprintf("s/l%d/b", i)] = "->" + next
		files[fmt.Sprintf("s/l%d/x.md", i)] = "x"
	}
	files[fmt.Sprintf("s/l%d/", levels)] = ""
	dir := writeTree(t, files)
	src := New(dir, []string{"s/**/*.md"}, nil, MaxFiles(1<<30))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var skips []Skip
	finishes(t, 20*time.Second, func() { _, skips = src.SkillsContext(ctx) })
	t.Logf("walk returned after %s", time.Since(start))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("walk took %s after a cancel at 100ms", d)
	}
	if len(skips) == 0 || skips[len(skips)-1].Reason != "walk stopped: context canceled" {
		t.Errorf("last skip = %v, want the walk stopped", skips)
	}
}
